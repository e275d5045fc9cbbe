import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The mocking fixture server: stubs served by `tapedeck replay` and `tapedeck record` to real
/// clients (curl, Python's urllib), faults seen as the failures they name, run-time stubs and verify.
@Suite("Stubs over real sockets", .serialized)
struct StubServerTests {
    static let home = TestFiles.folder.appendingPathComponent("tapedeck-stub-home-\(UUID().uuidString)")

    func replay(_ arguments: [String] = []) throws -> (TapedeckProcess, String) {
        let server = try TapedeckProcess(["replay", "--stubs", "cassettes/stubs-example.json", "--port", "0"] + arguments,
                                         environment: ["TAPEDECK_HOME": Self.home.path])
        let port = try server.waitUntilListening()
        return (server, "http://127.0.0.1:\(port)")
    }

    /// Runs a few lines of Python's urllib (a client that asks for no gzip); prints what it got.
    func python(_ code: String) async throws -> String {
        try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", code]).text
    }

    @Test("a path template with a templated body, served to curl", .requires(.curl))
    func templatedBody() async throws {
        let (server, base) = try replay()
        defer { _ = server.stop() }
        let result = try await Curl.run(["-H", "Accept: application/json", "\(base)/users/42?expand=teams"])
        #expect(result.text == #"{"id": 42, "name": "user 42", "expand": "teams"}"#)
        let miss = try await Curl.run(["-i", "-H", "Accept: text/html", "\(base)/users/42?expand=teams"])
        #expect(miss.text.contains("599"))
        #expect(miss.text.contains(#""failedField" : "headers""#), "the 599 names the stub and the field it failed")
    }

    @Test("a template naming a value the request lacks is a 500 template-failed naming the stub and the value; a default stands in", .requires(.curl))
    func templateWithAMissingValue() async throws {
        let (server, base) = try replay()
        defer { _ = server.stop() }
        let stubs = #"""
            {"stubs": [
              {"name": "item", "request": {"path": "/items/{id}"},
               "response": {"status": 200, "body": {"text": "{{path.id}} {{query.expand}}"}, "templated": true}},
              {"name": "thing", "request": {"path": "/things/{id}"},
               "response": {"status": 200, "headers": {"X-Expand": ["{{ query.expand | default: \"none\" }}"]},
                            "body": {"json": {"expand": "{{query.expand | default: 'none'}}", "trace": "{{header.X-Trace|default:''}}"}},
                            "templated": true}}]}
            """#
        let added = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-d", stubs, "\(base)/__tapedeck/stubs"])
        #expect(added.text.contains("ids"), "\(added.text)")
        let failed = try await Curl.run(["-i", "\(base)/items/7"])
        #expect(failed.text.hasPrefix("HTTP/1.1 500"), "\(failed.text)")
        #expect(failed.text.contains("Tapedeck-Error: template-failed"), "\(failed.text)")
        #expect(failed.text.contains(#"stub "item""#), "names the stub: \(failed.text)")
        #expect(failed.text.contains("{{query.expand}}") && failed.text.contains(#"query parameter "expand""#), "names the value: \(failed.text)")
        #expect(try await Curl.run(["\(base)/items/7?expand=teams"]).text == "7 teams")

        let defaulted = try await Curl.run(["-i", "\(base)/things/7"])
        #expect(defaulted.text.contains("X-Expand: none"), "\(defaulted.text)")
        #expect(defaulted.text.hasSuffix(#"{"expand":"none","trace":""}"#), "\(defaulted.text)")
        let given = try await Curl.run(["-H", "X-Trace: t1", "\(base)/things/7?expand=all"])
        #expect(given.text == #"{"expand":"all","trace":"t1"}"#, "\(given.text)")
    }

    @Test("a miss on a server with only stubs hints at the stubs, not at recording", .requires(.curl))
    func missHintFitsAServerOfStubs() async throws {
        let (server, base) = try replay()
        defer { _ = server.stop() }
        let miss = try await Curl.run(["-H", "Accept: text/html", "\(base)/users/42?expand=teams"])
        let diagnosis = try JSONDecoder().decode(MatchDiagnosis.self, from: miss.output)
        #expect(!diagnosis.hint.contains("record"), "\(diagnosis.hint)")
        #expect(diagnosis.hint.contains(#"stub "user by id" (stub-1)"#) && diagnosis.hint.contains("headers"), "\(diagnosis.hint)")
        #expect(diagnosis.hint.contains("add a stub"), "\(diagnosis.hint)")
    }

    @Test("a 503-then-201 scenario, each Tapedeck-Session walking its own, put back by reset", .requires(.curl))
    func scenarioPerSession() async throws {
        let (server, base) = try replay()
        defer { _ = server.stop() }
        func checkout(_ session: String) async throws -> String {
            try await Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json",
                                "-H", "Tapedeck-Session: \(session)", "-d", #"{"cart": ["book"]}"#, "\(base)/checkout"]).text
        }
        #expect(try await checkout("a") == "503")
        #expect(try await checkout("b") == "503")
        #expect(try await checkout("a") == "201")
        #expect(try await checkout("b") == "201")
        _ = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "\(base)/__tapedeck/reset"])
        #expect(try await checkout("a") == "503")
    }

    @Test("faults are seen by curl and by Python as the failures they name", .requires(.curl, .python3))
    func faults() async throws {
        let (server, base) = try replay()
        defer { _ = server.stop() }
        let stubs = #"{"stubs": [{"request": {"path": "/empty"}, "response": {"fault": "empty"}}, {"request": {"path": "/truncate"}, "response": {"status": 200, "body": {"text": "0123456789abcdefghij"}, "fault": "truncate"}}, {"request": {"path": "/malformed"}, "response": {"fault": "malformed"}}, {"request": {"path": "/gone"}, "response": {"fault": "goaway"}}, {"request": {"path": "/reset-stream"}, "response": {"fault": "rst-stream"}}]}"#
        let added = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-d", stubs, "\(base)/__tapedeck/stubs"])
        #expect(added.text.contains("ids"))
        #expect(try await Curl.run(["\(base)/flaky"]).status == 56, "reset: connection reset by peer")
        #expect(try await Curl.run(["\(base)/empty"]).status == 52, "empty: empty reply from server")
        #expect(try await Curl.run(["\(base)/truncate"]).status == 18, "truncate: transfer closed with bytes remaining")
        // Over HTTP/1.1 the HTTP/2 faults are a reset of this connection; the server goes on listening.
        #expect(try await Curl.run(["\(base)/gone"]).status == 56, "goaway over HTTP/1.1: reset")
        #expect(try await Curl.run(["\(base)/reset-stream"]).status == 56, "rst-stream over HTTP/1.1: reset")
        #expect(try await Curl.run(["\(base)/__tapedeck/health"]).status == 0, "the server still listens")
        let malformed = try await Curl.run(["\(base)/malformed"])
        #expect(malformed.status == 1 || malformed.status == 8, "malformed: \(malformed.status) \(malformed.error)")
        let seen = try await python("""
            import urllib.request, http.client
            for path in ["flaky", "empty", "truncate", "malformed"]:
                try:
                    urllib.request.urlopen("\(base)/" + path, timeout=\(Deadlines.clientCall)).read()
                    print(path, "ok")
                except Exception as error:
                    print(path, type(error).__name__)
            """)
        #expect(seen.contains("flaky ConnectionResetError"))
        #expect(seen.contains("empty RemoteDisconnected"))
        #expect(seen.contains("truncate IncompleteRead"))
        #expect(seen.contains("malformed BadStatusLine"))
    }

    @Test("run-time stubs: added (session-scoped), listed, deleted; verify counts what the client sent; a malformed stub is a 400 naming the field",
          .requires(.curl))
    func runTimeStubsAndVerify() async throws {
        let (server, base) = try replay()
        defer { _ = server.stop() }
        let add = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-H", "Tapedeck-Session: s1", "-d",
                                      #"{"request": {"method": "GET", "path": "/feature-flags"}, "response": {"status": 200, "body": {"json": {"beta": true}}}}"#,
                                      "\(base)/__tapedeck/stubs"])
        let id = try #require(try (JSONSerialization.jsonObject(with: add.output) as? [String: [String]])?["ids"]?.first)
        #expect(try await Curl.run(["-H", "Tapedeck-Session: s1", "\(base)/feature-flags"]).text == #"{"beta":true}"#)
        #expect(try await Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "-H", "Tapedeck-Session: s2", "\(base)/feature-flags"]).text == "599")
        #expect(try await Curl.run(["\(base)/__tapedeck/stubs"]).text.contains(id))
        for order in ["A", "B", "A"] {
            _ = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"order": "\#(order)"}"#, "\(base)/audit"])
        }
        let verify = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"method": "POST", "path": "/audit", "json": {"order": "A"}}"#,
                                         "\(base)/__tapedeck/verify"])
        #expect((try JSONSerialization.jsonObject(with: verify.output) as? [String: Any])?["count"] as? Int == 2)
        #expect(try await Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE", "\(base)/__tapedeck/stubs/\(id)"]).text == "200")
        #expect(try await Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE", "\(base)/__tapedeck/stubs/\(id)"]).text == "404")
        let before = try await Curl.run(["\(base)/__tapedeck/stubs"]).text
        let bad = try await Curl.run(["-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"request": {"pathRegex": "("}, "response": {"status": 200}}"#,
                                      "\(base)/__tapedeck/stubs"])
        #expect(bad.text.hasSuffix("400"))
        #expect(bad.text.contains("request.pathRegex"))
        #expect(try await Curl.run(["\(base)/__tapedeck/stubs"]).text == before, "a malformed stub changes nothing")
    }

    @Test("a broken stub file stops replay with exit 2, naming the file and the JSON path")
    func brokenStubFile() throws {
        let file = TestFiles.folder.appendingPathComponent("tapedeck-bad-stubs-\(UUID().uuidString).json")
        try Data(#"{"version": 1, "stubs": [{"request": {"metod": "GET"}, "response": {"status": 200}}]}"#.utf8).write(to: file)
        let server = try TapedeckProcess(["replay", "--stubs", file.path, "--port", "0"], environment: ["TAPEDECK_HOME": Self.home.path])
        #expect(server.waitForExit() == 2)
        let message = server.standardError()
        #expect(message.contains(file.lastPathComponent))
        #expect(message.contains("stubs[0].request"))
        #expect(message.contains("metod"))
    }

    @Test("host, pathRegex, form and bodyContains patterns through the server, and a regex capture in a JSON template", .requires(.curl))
    func otherPatternFields() async throws {
        let (server, base) = try replay()
        defer { _ = server.stop() }
        let stubs = #"{"stubs": [{"request": {"host": "api.example.test", "path": "/only-that-host"}, "response": {"status": 200, "body": {"text": "host ok"}}}, {"request": {"method": "POST", "path": "/login", "form": {"user": "{user}"}}, "response": {"status": 200, "body": {"text": "hello {{form.user}}"}, "templated": true}}, {"request": {"method": "POST", "path": "/search", "bodyContains": "needle"}, "response": {"status": 200, "body": {"text": "found"}}}]}"#
        _ = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-d", stubs, "\(base)/__tapedeck/stubs"])
        // Through the server as a proxy the request names its host; sent straight, it names none.
        #expect(try await Curl.run(["--proxy", base, "http://api.example.test/only-that-host"]).text == "host ok")
        #expect(try await Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "--proxy", base, "http://other.test/only-that-host"]).text == "599")
        #expect(try await Curl.run(["-d", "user=ada&remember=1", "\(base)/login"]).text == "hello ada")
        #expect(try await Curl.run(["-d", "hay needle hay", "\(base)/search"]).text == "found")
        let regex = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"note": "ship it"}"#, "\(base)/orders/31/notes"])
        let json = try #require(try JSONSerialization.jsonObject(with: regex.output) as? [String: String])
        #expect(json["order"] == "31")
        #expect(json["note"] == "ship it")
        #expect(json["id"]?.count == 36)
    }

    @Test("the recording proxy answers from a stub before the network, and records only what it forwards", .requires(.curl, .python3))
    func recordingProxyStubWinsOverTheNetwork() async throws {
        let upstream = try EchoUpstream(routes: ["/live": EchoUpstream.route(body: ["live": true])])
        defer { upstream.stop() }
        let folder = try Fixtures.temporaryDirectory()
        let cassette = folder.appendingPathComponent("proxied.json")
        let server = try TapedeckProcess(["record", cassette.path, "--target", upstream.baseURL, "--port", "0",
                                          "--stubs", "cassettes/stubs-example.json"],
                                         environment: ["TAPEDECK_HOME": folder.appendingPathComponent("home").path])
        let base = "http://127.0.0.1:\(try server.waitUntilListening())"
        #expect(try await Curl.run(["-H", "Accept: application/json", "\(base)/users/5?expand=x"]).text.contains(#""id": 5"#))
        #expect(try await Curl.run(["\(base)/live"]).text.contains(#""live": true"#))
        server.signal(SIGINT)
        #expect(server.waitForExit() == 0)
        #expect(try CassetteCodec().load(cassette).interactions.map(\.request.url) == [upstream.baseURL + "/live"])
    }
}
