import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing

/// `tapedeck replay --openapi`: the real server, curl as the client, the Petstore document of
/// ``OpenAPIValidateTests``. Recordings answer first, then stubs, then the document.
@Suite("tapedeck replay --openapi", .serialized)
struct OpenAPIReplayTests {
    /// A replay server of `cassette` (none: the document alone) with the document; its port.
    func server(_ document: String = "petstore-3.0.yaml", cassette: Cassette? = nil, _ extra: [String] = []) throws -> (TapedeckProcess, Int) {
        var arguments = ["replay", "--openapi", OpenAPIValidateTests.document(document).path, "--port", "0"] + extra
        if let cassette {
            let file = try ToolingTestSupport.temporaryFolder().appendingPathComponent("recorded.json")
            try CassetteCodec().save(cassette, to: file)
            arguments.append(file.path)
        }
        let process = try TapedeckProcess(arguments, environment: ["TAPEDECK_HOME": try ToolingTestSupport.temporaryFolder().path])
        return (process, try process.waitUntilListening())
    }

    /// curl's status, Content-Type and body.
    func get(_ port: Int, _ path: String, _ headers: [String] = []) throws -> (status: Int, type: String, body: String) {
        let marker = "\n--curl--"
        let outcome = try ToolingTestSupport.run(URL(filePath: "/usr/bin/env"),
                                                 ["curl", "-s", "-w", "\(marker)%{http_code} %{content_type}"] + headers.flatMap { ["-H", $0] }
                                                    + ["http://127.0.0.1:\(port)\(path)"])
        let parts = outcome.stdout.components(separatedBy: marker)
        let tail = (parts.last ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        return (Int(tail.first ?? "") ?? 0, tail.count > 1 ? tail[1] : "", parts.first ?? "")
    }

    @Test("an operation nobody recorded is answered with its example; Prefer picks another answer",
          .requires(.curl), arguments: OpenAPIValidateTests.documents)
    func examplesAndPrefer(document: String) throws {
        let (server, port) = try server(document)
        defer { server.stop() }
        let first = try get(port, "/v1/pets/1")
        #expect(first.status == 200 && first.type == "application/json" && first.body == #"{"id":7,"name":"Tom"}"#, "\(first)")
        #expect(try get(port, "/v1/pets/1", ["Prefer: example=dog"]).body == #"{"id":8,"name":"Rex"}"#)
        let missing = try get(port, "/v1/pets/1", ["Prefer: code=404"])
        #expect(missing.status == 404 && missing.body.isEmpty, "\(missing)")
        let deleted = try get(port, "/v1/pets/1", ["Prefer: code=500"])
        #expect(deleted.status == 599, "no 500 is documented for the operation: \(deleted)")
    }

    @Test("without an example the body is generated from the schema, the same in every run and valid", .requires(.curl))
    func generatedBodies() throws {
        var bodies: [String] = []
        for _ in 0..<2 {
            let (server, port) = try server()
            defer { server.stop() }
            let answer = try get(port, "/v1/pets", ["X-Request-Id: 0b8f6a4e-5c1d-4e2f-9a3b-7c6d5e4f3a2b"])
            #expect(answer.status == 200 && answer.type == "application/json")
            bodies.append(answer.body)
        }
        #expect(bodies[0] == bodies[1], "deterministic: \(bodies)")
        let pets = try #require(try JSONSerialization.jsonObject(with: Data(bodies[0].utf8)) as? [[String: Any]])
        for pet in pets { #expect(pet["id"] is Int && pet["name"] is String, "\(pet)") }
        // The generated answer, recorded, conforms to the document.
        let file = try ToolingTestSupport.temporaryFolder().appendingPathComponent("generated.json")
        try CassetteCodec().save(Cassette(interactions: [Interaction(
            request: CassetteRequest(method: "GET", url: "http://api.example.test/v1/pets",
                                     headers: ["X-Request-Id": "0b8f6a4e-5c1d-4e2f-9a3b-7c6d5e4f3a2b"]),
            response: CassetteResponse(status: 200, headers: ["Content-Type": "application/json"], body: Body(text: bodies[0])))]), to: file)
        let check = try ToolingTestSupport.tapedeck("openapi", "validate", OpenAPIValidateTests.document("petstore-3.1.json").path, file.path)
        #expect(check.status == 0, "\(check.stdout)")
    }

    @Test("an operation with recordings is answered by them only, as recorded; no operation fits: 599 naming the document",
          .requires(.curl))
    func recordingsFirst() throws {
        let recorded = Interaction(request: CassetteRequest(method: "GET", url: "/v1/pets/1"),
                                   response: CassetteResponse(status: 200, headers: ["Content-Type": "application/json"],
                                                              body: Body(text: #"{"id": "one", "name": "Rex"}"#)))
        let (server, port) = try server(cassette: Cassette(interactions: [recorded]))
        defer { server.stop() }
        #expect(try get(port, "/v1/pets/1").body == #"{"id": "one", "name": "Rex"}"#, "served as recorded, though it breaks the document")
        #expect(try get(port, "/v1/pets/2").status == 599, "GET /pets/{petId} has a recording: the document does not answer it")
        let unknown = try get(port, "/v1/owners")
        #expect(unknown.status == 599 && unknown.body.contains("The API document does not answer it: /v1/owners is not in the document"),
                "\(unknown.body)")
    }

    @Test("violations go to the journal and the 599 diagnosis, never into the answer", .requires(.curl))
    func violationsAreNoted() throws {
        let recorded = Interaction(request: CassetteRequest(method: "GET", url: "/v1/pets/1"),
                                   response: CassetteResponse(status: 200, headers: ["Content-Type": "application/json"],
                                                              body: Body(text: #"{"id": "one", "name": "Rex"}"#)))
        let (server, port) = try server(cassette: Cassette(interactions: [recorded]))
        defer { server.stop() }
        let served = try get(port, "/v1/pets/1")
        #expect(served.status == 200 && !served.body.contains("violation"))
        let unknown = try get(port, "/v1/owners")
        let diagnosis = try #require(try JSONSerialization.jsonObject(with: Data(unknown.body.utf8)) as? [String: Any])
        #expect(diagnosis["violations"] as? [String] == ["request.path: /v1/owners is not in the document"], "\(unknown.body)")
        let journal = try get(port, "/__tapedeck/journal")
        let entries = try #require((try JSONSerialization.jsonObject(with: Data(journal.body.utf8)) as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.map { $0["violations"] as? [String] ?? [] } == [
            ["response.body $.id: expected integer, got string"],
            ["request.path: /v1/owners is not in the document"],
        ], "\(journal.body)")
        let exchanges = try get(port, "/__tapedeck/exchanges")
        #expect(exchanges.body.contains("response.body $.id: expected integer, got string"), "the inspector's exchanges: \(exchanges.body)")
    }

    @Test("--openapi-strict refuses a request that breaks the document with 400 problem details", .requires(.curl))
    func strictRefuses() throws {
        let (server, port) = try server("petstore-3.0.yaml", cassette: nil, ["--openapi-strict"])
        defer { server.stop() }
        let refused = try get(port, "/v1/pets?limit=0")
        #expect(refused.status == 400 && refused.type == "application/problem+json", "\(refused)")
        let problem = try #require(try JSONSerialization.jsonObject(with: Data(refused.body.utf8)) as? [String: Any])
        #expect(problem["status"] as? Int == 400)
        #expect(problem["violations"] as? [String] == ["request.query limit: 0 is less than the minimum 1",
                                                       "request.header X-Request-Id: required, missing"], "\(refused.body)")
        let conforming = try get(port, "/v1/pets?limit=5", ["X-Request-Id: 0b8f6a4e-5c1d-4e2f-9a3b-7c6d5e4f3a2b"])
        #expect(conforming.status == 200, "\(conforming)")
    }

    @Test("record --openapi notes what a live exchange breaks: a warning line and the journal; strict refuses",
          .requires(.curl, .python3))
    func recordingNotesViolations() throws {
        let live = try EchoUpstream(routes: ["/v1/pets/1": EchoUpstream.route(body: ["id": "one", "name": "Rex"])])
        defer { live.stop() }
        let cassette = try ToolingTestSupport.temporaryFolder().appendingPathComponent("live.json")
        let recorder = try TapedeckProcess(["record", cassette.path, "--target", live.baseURL, "--port", "0", "--quiet",
                                            "--openapi", OpenAPIValidateTests.document("petstore-3.0.yaml").path, "--openapi-strict"],
                                           environment: ["TAPEDECK_HOME": try ToolingTestSupport.temporaryFolder().path])
        let port = try recorder.waitUntilListening()
        let answer = try get(port, "/v1/pets/1")
        #expect(answer.status == 200 && answer.body.contains(#""id": "one""#), "recorded and passed on as the service answered: \(answer)")
        #expect(try get(port, "/v1/pets/abc").status == 400, "strict: petId is not an integer, never forwarded")
        var entries: [[String: Any]] = []
        try waitUntilSync {
            let journal = try get(port, "/__tapedeck/journal")
            entries = (try JSONSerialization.jsonObject(with: Data(journal.body.utf8)) as? [String: Any])?["entries"] as? [[String: Any]] ?? []
            return !entries.isEmpty
        }
        #expect(entries.first?["violations"] as? [String] == ["response.body $.id: expected integer, got string"], "\(entries)")
        let stderr = recorder.stop()
        #expect(stderr.contains("recorded GET http://127.0.0.1:"), "\(stderr)")
        #expect(stderr.contains("breaks the API document: response.body $.id: expected integer, got string"), "\(stderr)")
    }

    /// Polls `condition` for up to 10 s.
    private func waitUntilSync(_ condition: () throws -> Bool) throws {
        var tries = 0
        while try !condition(), tries < 200 {
            tries += 1
            usleep(50_000)
        }
    }

    @Test("a document that cannot be read stops the server from starting, with exit 2")
    func unreadableDocument() throws {
        let spec = try ToolingTestSupport.temporaryFolder().appendingPathComponent("broken.yaml")
        try Data("openapi: 3.0.3\npaths: [\n".utf8).write(to: spec)
        let outcome = try ToolingTestSupport.tapedeck("replay", "--openapi", spec.path, "--port", "0")
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("broken.yaml") && outcome.stderr.contains("not an OpenAPI document"), "\(outcome.stderr)")
    }
}
