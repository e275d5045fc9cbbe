import Foundation
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// The admin API's contract, schema/admin-api.openapi.json: valid OpenAPI 3.1, served byte for
/// byte at /__tapedeck/openapi.json, and true of every answer a real server gives, errors included.
/// Python's openapi-spec-validator and jsonschema judge, through scripts/check_admin_answers.py.
@Suite struct AdminAPIDocumentTests {
    private static let document = Fixtures.packageRoot.appending(path: "schema/admin-api.openapi.json")

    @Test func theCommittedDocumentIsTheOneServed() throws {
        let committed = try String(contentsOf: Self.document, encoding: .utf8)
        #expect(committed == AdminAPIDocument.json, "run python3 scripts/embed_admin_api.py after editing schema/admin-api.openapi.json")
    }

    @Test(.requires(.jsonschema, .openAPISpecValidator)) func theDocumentIsValidOpenAPI31() async throws {
        let valid = try await Self.check([Self.document.path])
        #expect(valid.status == 0, "\(valid.text)\(valid.error)")
        // The validator runs: a document without its info is refused.
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var broken = try #require(try JSONSerialization.jsonObject(with: Data(AdminAPIDocument.json.utf8)) as? [String: Any])
        broken["info"] = nil
        let file = folder.appending(path: "broken.json")
        try JSONSerialization.data(withJSONObject: broken).write(to: file)
        let refused = try await Self.check([file.path])
        #expect(refused.status == 1 && refused.text.contains("not a valid OpenAPI document"), "\(refused.text)\(refused.error)")
    }

    @Test(.requires(.curl, .jsonschema, .openAPISpecValidator)) func everyAnswerOfARealServerConformsAndEveryPathIsAsked() async throws {
        var answers = try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { harness in
            try await Self.askEverything(AdminClient(base: harness.base))
        }
        // Under --proxy-auth every path asks for the credentials; --max-body bounds a write's body.
        answers += try await ReplayHarness.run(files: [Fixtures.exampleCassette], configure: {
            $0.proxyCredentials = ProxyCredentials(user: "alice", password: "s3cret")
            $0.maxBodySize = 256
        }) { harness in
            let client = AdminClient(base: harness.base)
            let login = ["--user", "alice:s3cret"]
            return [
                try await client.ask("GET", "health", expecting: 401),
                try await client.ask("POST", "stubs", json: "{}", expecting: 401),
                try await client.ask("GET", "health", curl: login, expecting: 200),
                try await client.ask("POST", "stubs", json: String(repeating: " ", count: 300) + "{}", curl: login, expecting: 413),
            ]
        }
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "answers.json")
        try JSONEncoder().encode(answers).write(to: file)
        let checked = try await Self.check([Self.document.path, file.path, "--all"])
        #expect(checked.status == 0, "\(checked.text)\(checked.error)")

        // The check can fail: a body off its schema, a wrong type, an undocumented status, a wrong
        // Allow and an operation never asked are each found.
        var doctored = answers.filter { !($0.method == "DELETE" && $0.path == "/__tapedeck/stubs") }
        let health = try #require(doctored.firstIndex { $0.path == "/__tapedeck/health" && $0.method == "GET" && $0.status == 200 })
        doctored[health].body = doctored[health].body.replacingOccurrences(of: #""status" : "ok""#, with: #""status" : "fine""#)
        let journal = try #require(doctored.firstIndex { $0.path == "/__tapedeck/journal" })
        doctored[journal].headers["Content-Type"] = "text/plain"
        let missing = try #require(doctored.firstIndex { $0.path == "/__tapedeck/exchanges/999" })
        doctored[missing].status = 410
        let notAllowed = try #require(doctored.firstIndex { $0.method == "PUT" })
        doctored[notAllowed].headers["Allow"] = "GET"
        try JSONEncoder().encode(doctored).write(to: file)
        let refused = try await Self.check([Self.document.path, file.path, "--all"])
        #expect(refused.status == 1)
        for finding in ["GET /__tapedeck/health -> 200: status: 'ok' was expected",
                        "GET /__tapedeck/journal -> 200: Content-Type 'text/plain' is not documented",
                        "GET /__tapedeck/exchanges/999 -> 410: status 410 is not documented",
                        "PUT /__tapedeck/stubs -> 405: Allow names GET, the document DELETE, GET, HEAD, POST",
                        "never asked: DELETE /__tapedeck/stubs\n"] {
            #expect(refused.text.contains(finding), "\(finding) in \(refused.text)")
        }
    }

    /// Asks every documented operation of a replay server over the example cassette, with stubs,
    /// played, unmatched and stubbed requests behind it, and the errors each can answer.
    private static func askEverything(_ client: AdminClient) async throws -> [AdminClient.Answer] {
        let greeting = #"{"id": "greeting", "name": "greeting", "request": {"method": "GET", "path": "/greet/{who}"}, "#
            + #""response": {"status": 200, "headers": {"Content-Type": ["text/plain"]}, "body": {"text": "hello {{path.who}}"}, "templated": true}}"#
        let list = #"{"stubs": [{"id": "with space", "request": {"path": "/spaced"}, "response": {"status": 204}}, "#
            + #"{"request": {"path": "/session-only"}, "response": {"fault": "reset"}}]}"#
        let session = ["-H", "Tapedeck-Session: s1"]
        var answers: [AdminClient.Answer] = []
        answers.append(try await client.ask("POST", "stubs", json: greeting, expecting: 201))
        answers.append(try await client.ask("POST", "stubs", json: list, curl: session, expecting: 201))
        // Exchanges 1 to 4: played, unmatched, stubbed, unmatched near a stub.
        for path in ["/plaintext?name=Shawn", "/plaintext?name=Bob", "/greet/world", "/greeting"] {
            _ = try await Curl.run([client.base + path])
        }
        answers += [
            try await client.ask("POST", "stubs", json: #"{"response": {"status": 42}}"#, expecting: 400),
            try await client.ask("POST", "stubs", json: "not json", expecting: 400),
            try await client.ask("POST", "stubs", json: greeting, curl: ["-H", "Content-Type: text/plain"], expecting: 415),
            try await client.ask("POST", "stubs", json: greeting, curl: ["-H", "Origin: http://127.0.0.1:9"], expecting: 403),
            try await client.ask("GET", "health", curl: ["-H", "Host: attacker.example"], expecting: 403),
            try await client.ask("GET", "stubs", expecting: 200),
            try await client.ask("GET", "stubs", curl: session, expecting: 200),
            try await client.ask("POST", "verify", json: #"{"path": "/greet/world"}"#, expecting: 200),
            try await client.ask("POST", "verify", json: #"{"method": "GET"}"#, curl: session, expecting: 200),
            try await client.ask("POST", "verify", json: #"{"nope": 1}"#, expecting: 400),
            try await client.ask("POST", "verify", json: "{}", curl: ["-H", "Content-Type: application/x-www-form-urlencoded"], expecting: 415),
            try await client.ask("HEAD", "health", expecting: 200),
            try await client.ask("HEAD", "stubs", expecting: 200),
        ]
        for endpoint in ["health", "journal", "unmatched", "exchanges", "exchanges/1", "exchanges/2", "exchanges/3", "exchanges/4",
                         "cassettes", "ui", "ui/", "ui/style.css", "ui/app.js", "ui/live.js", "ca.pem", "openapi.json"] {
            answers.append(try await client.ask("GET", endpoint, expecting: 200))
        }
        let stream = try await client.ask("GET", "events", curl: ["--max-time", "1"], expecting: 200)
        answers.append(stream)
        #expect(stream.body.hasPrefix("retry: 2000\n"))
        let served = try #require(answers.last { $0.path.hasSuffix("openapi.json") })
        #expect(served.body == AdminAPIDocument.json)
        answers += [
            try await client.ask("GET", "exchanges/999", expecting: 404),
            try await client.ask("GET", "exchanges/abc", expecting: 404),
            try await client.ask("DELETE", "stubs/greeting", expecting: 200),
            try await client.ask("DELETE", "stubs/greeting", expecting: 404),
            try await client.ask("DELETE", "stubs/with%20space", expecting: 200),
            try await client.ask("DELETE", "stubs", curl: session, expecting: 200),
            try await client.ask("DELETE", "stubs", expecting: 200),
            try await client.ask("POST", "reset", json: "", expecting: 200),
            // A method a path does not take is 405 with Allow, whatever its Content-Type.
            try await client.ask("PATCH", "health", json: "{}", expecting: 405),
            try await client.ask("PUT", "stubs", json: "{}", curl: ["-H", "Content-Type: text/plain"], expecting: 405),
            try await client.ask("GET", "reset", expecting: 405),
            try await client.ask("DELETE", "exchanges/1", expecting: 405),
            try await client.ask("GET", "stubs/greeting", expecting: 405),
            try await client.ask("OPTIONS", "stubs", curl: ["-H", "Origin: http://127.0.0.1:9"], expecting: 403),
            try await client.ask("GET", "nonsense", expecting: 404),
            try await client.ask("POST", "nonsense", json: "{}", curl: ["-H", "Content-Type: text/plain"], expecting: 404),
        ]
        let allow = try #require(answers.first { $0.method == "PUT" }).headers["Allow"]
        #expect(allow == "GET, HEAD, POST, DELETE")
        return answers
    }

    /// Runs scripts/check_admin_answers.py with these arguments.
    private static func check(_ arguments: [String]) async throws -> Curl.Result {
        try await Subprocess.run(executable: "/usr/bin/env", arguments: [
            "python3", Fixtures.packageRoot.appending(path: "scripts/check_admin_answers.py").path,
        ] + arguments)
    }
}

/// Asks a server's admin API with curl and keeps each answer as the checker reads it.
private struct AdminClient {
    /// One answer: what the checker reads.
    struct Answer: Codable {
        var method: String
        var path: String
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// `http://127.0.0.1:PORT`.
    let base: String

    /// Asks `METHOD /__tapedeck/ENDPOINT`; `json` is sent as the body with Content-Type
    /// application/json unless `curl` sets another type. Expects the status given.
    func ask(_ method: String, _ endpoint: String, json: String? = nil, curl: [String] = [], expecting status: Int,
             sourceLocation: SourceLocation = #_sourceLocation) async throws -> Answer {
        let path = AdminEndpoints.prefix + endpoint
        var arguments = ["--include"] + (method == "HEAD" ? ["--head"] : ["--request", method])
        if let json {
            let setsType = curl.contains { $0.lowercased().hasPrefix("content-type:") }
            arguments += (setsType ? [] : ["-H", "Content-Type: application/json"]) + ["--data-binary", json]
        }
        arguments += curl + [base + path]
        let output = try await Curl.run(arguments).text
        let parts = output.components(separatedBy: "\r\n\r\n")
        let lines = parts[0].components(separatedBy: "\r\n")
        let code = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let answer = Answer(method: method, path: path, status: code ?? 0, headers: headers,
                            body: parts.dropFirst().joined(separator: "\r\n\r\n"))
        #expect(answer.status == status, "\(method) \(path): \(output)", sourceLocation: sourceLocation)
        return answer
    }
}
