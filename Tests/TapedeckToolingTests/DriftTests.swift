import Foundation
import TapedeckCore
import TapedeckTestSupport
import TapedeckTooling
import Testing

@Suite("Drift: recorded answers compared with the live service's")
struct DriftComparisonTests {
    func response(_ json: String, status: Int = 200, type: String = "application/json") -> (CassetteResponse, Data) {
        (CassetteResponse(status: status, headers: ["Content-Type": type], body: Body(text: json)), Data(json.utf8))
    }

    func differences(_ recorded: (CassetteResponse, Data), _ live: (CassetteResponse, Data), values: Bool = false) -> [DriftDifference] {
        DriftComparison(values: values).differences(recorded: recorded.0, recordedBody: recorded.1,
                                                   live: live.0, liveBody: live.1, index: 3)
    }

    @Test("a field the live answer gained is an addition: reported, not breaking")
    func gainedField() {
        let found = differences(response(#"{"user":{"id":1}}"#), response(#"{"user":{"id":1,"age":30}}"#))
        #expect(found.map(\.description) == ["interactions[3] $.user.age: absent -> number"])
        #expect(found.allSatisfy { !$0.isBreaking })
    }

    @Test("a changed type, a removed field and a changed status are breaking")
    func breakingChanges() {
        let found = differences(response(#"{"user":{"age":30,"name":"Ada"}}"#), response(#"{"user":{"age":"30"}}"#, status: 404))
        #expect(Set(found.map(\.description)) == [
            "interactions[3] status: 200 -> 404",
            "interactions[3] $.user.age: number -> string",
            "interactions[3] $.user.name: string -> absent",
        ])
        #expect(found.allSatisfy { $0.isBreaking })
    }

    @Test("values are compared only when asked; arrays element by element; odd keys quoted")
    func valuesWhenAsked() {
        let recorded = response(#"{"items":[{"n":1}],"odd key":"a"}"#)
        let live = response(#"{"items":[{"n":2},{"n":3}],"odd key":"b"}"#)
        #expect(differences(recorded, live).isEmpty)
        #expect(Set(differences(recorded, live, values: true).map(\.description)) == [
            "interactions[3] $.items[0].n: 1 -> 2",
            "interactions[3] $.items: 1 elements -> 2 elements",
            "interactions[3] $['odd key']: \"a\" -> \"b\"",
        ])
    }

    @Test("a changed media type is breaking; a non-JSON body is compared only with values")
    func mediaTypeAndText() {
        let found = differences(response("<p>a</p>", type: "text/html"), response(#"{"a":1}"#))
        #expect(found.map(\.description) == ["interactions[3] Content-Type: text/html -> application/json"])
        let text = differences(response("hello", type: "text/plain"), response("hello!", type: "text/plain; charset=utf-8"), values: true)
        #expect(text.map(\.description) == ["interactions[3] body: 5 bytes -> 6 bytes"])
    }
}

@Suite("tapedeck drift against a local live service", .serialized)
struct DriftCommandTests {
    /// A cassette recorded from `http://api.example.test` with one GET /user answered by `body`.
    func cassette(body: String, requestHeaders: HeaderList = [:]) throws -> URL {
        let file = try ToolingTestSupport.temporaryFolder().appendingPathComponent("user.json")
        try CassetteCodec().save(Cassette(interactions: [Interaction(
            request: CassetteRequest(method: "GET", url: "http://api.example.test/user", headers: requestHeaders),
            response: CassetteResponse(status: 200, headers: ["Content-Type": "application/json"], body: Body(text: body)))]),
            to: file)
        return file
    }

    func route(_ body: [String: Any], status: Int = 200, requireHeader: (String, String)? = nil,
               echoHeader: String? = nil) -> [String: Any] {
        ["/user": EchoUpstream.route(status: status, body: body, requireHeader: requireHeader, echoHeader: echoHeader)]
    }

    @Test("an answer that only gained a field exits 0 and leaves the cassette as it was", .requires(.python3))
    func gainedFieldExitsZero() throws {
        let live = try EchoUpstream(routes: route(["id": 1, "name": "Ada", "age": 36]))
        defer { live.stop() }
        let file = try cassette(body: #"{"id":1,"name":"Ada"}"#)
        let before = try Data(contentsOf: file)
        let outcome = try ToolingTestSupport.tapedeck("drift", file.path, "--target", live.baseURL)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("interactions[0] $.age: absent -> number"))
        #expect(outcome.stdout.contains("1 interaction checked: 1 difference, 0 breaking"))
        #expect(try Data(contentsOf: file) == before, "nothing is written without --update")
    }

    @Test("a changed type exits 1", .requires(.python3))
    func changedTypeExitsOne() throws {
        let live = try EchoUpstream(routes: route(["id": "1", "name": "Ada"]))
        defer { live.stop() }
        let outcome = try ToolingTestSupport.tapedeck("drift", try cassette(body: #"{"id":1,"name":"Ada"}"#).path, "--target", live.baseURL)
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("interactions[0] $.id: number -> string"))
    }

    @Test("a gzip answer is compared decoded; a redirect is compared as answered, not followed", .requires(.python3))
    func gzipDecodedAndRedirectNotFollowed() throws {
        let user = EchoUpstream.route(body: ["id": 1, "name": "Ada"], gzip: true)
        let live = try EchoUpstream(routes: ["/user": user, "/moved": EchoUpstream.route(status: 302, body: [:], headers: ["Location": "/user"])])
        defer { live.stop() }
        let file = try ToolingTestSupport.temporaryFolder().appendingPathComponent("two.json")
        let answer = CassetteResponse(status: 200, headers: ["Content-Type": "application/json"], body: Body(text: #"{"id":1,"name":"Ada"}"#))
        try CassetteCodec().save(Cassette(interactions: ["/user", "/moved"].map { path in
            Interaction(request: CassetteRequest(method: "GET", url: "http://api.example.test\(path)"), response: answer)
        }), to: file)
        let outcome = try ToolingTestSupport.tapedeck("drift", file.path, "--target", live.baseURL)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(!outcome.stdout.contains("interactions[0]"), "the decoded body is the recorded one: \(outcome.stdout)")
        #expect(outcome.stdout.contains("interactions[1] status: 200 -> 302"), "\(outcome.stdout)")
    }

    @Test("a changed status exits 1", .requires(.python3))
    func changedStatusExitsOne() throws {
        let live = try EchoUpstream(routes: route(["error": "gone"], status: 410))
        defer { live.stop() }
        let outcome = try ToolingTestSupport.tapedeck("drift", try cassette(body: #"{"id":1}"#).path, "--target", live.baseURL)
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("interactions[0] status: 200 -> 410"))
    }

    @Test("--secret puts the live value back for the service, and --update saves its echo as <NAME>", .requires(.python3))
    func secretsAndUpdate() throws {
        let token = "tok-live-123456"
        let live = try EchoUpstream(routes: route(["id": 1], requireHeader: ("X-Team-Token", token), echoHeader: "X-Team-Token"))
        defer { live.stop() }
        let file = try cassette(body: #"{"id":1}"#, requestHeaders: ["X-Team-Token": "<TEAM_TOKEN>"])
        let result = try ChildProcess.run(try TapedeckBinary.locate(),
                                          ["drift", file.path, "--target", live.baseURL, "--secret", "TEAM_TOKEN=DRIFT_TEST_TOKEN", "--update"],
                                          environment: ["DRIFT_TEST_TOKEN": token], mergingErrors: false)
        let stdout = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(result.status == 0, "\(result.output)")
        #expect(stdout.contains("$.echo: absent -> string"), "the service saw the real token: no 401")
        let saved = try String(contentsOf: file, encoding: .utf8)
        #expect(!saved.contains(token), "the live value never reaches the cassette")
        let body = try CassetteCodec().load(file).interactions[0].response.body.data
        #expect((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["echo"] as? String == "<TEAM_TOKEN>")
    }

    @Test("a secret shorter than 6 characters is refused with exit 2")
    func shortSecretRefused() throws {
        let result = try ChildProcess.run(try TapedeckBinary.locate(), ["drift", try cassette(body: "{}").path, "--secret", "PIN=DRIFT_PIN"],
                                          environment: ["DRIFT_PIN": "1234"], mergingErrors: false)
        #expect(result.status == 2)
        #expect(String(decoding: result.standardError, as: UTF8.self).contains("at least 6"))
    }
}
