import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The recording proxy and the replay server with secrets, expiry and bodies that do not decode.
@Suite("Recording proxy: secrets, expiry, undecodable bodies", .serialized)
struct RecordingLifecycleTests {
    func record(_ cassette: URL, target: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> (TapedeckProcess, String) {
        let home = cassette.deletingLastPathComponent().appendingPathComponent("home")
        let server = try TapedeckProcess(["record", cassette.path, "--target", target, "--port", "0"] + extra,
                                         environment: environment.merging(["TAPEDECK_HOME": home.path]) { $1 })
        return (server, "http://127.0.0.1:\(try server.waitUntilListening())")
    }

    @Test("a secret echoed by the upstream in a header and a JSON body never lands in the cassette", .requires(.curl, .python3))
    func secretNeverLands() async throws {
        let token = "team-secret-77x1"
        let upstream = try EchoUpstream(routes: ["/me": EchoUpstream.route(body: ["id": 1], requireHeader: ("X-Team-Token", token),
                                                                            echoHeader: "X-Team-Token")])
        defer { upstream.stop() }
        let cassette = try Fixtures.temporaryDirectory().appendingPathComponent("secret.json")
        let (server, base) = try record(cassette, target: upstream.baseURL, ["--secret", "TEAM_TOKEN=RECORD_TEST_TOKEN"],
                                        environment: ["RECORD_TEST_TOKEN": token])
        let answer = try await Curl.run(["-H", "X-Team-Token: \(token)", "\(base)/me"])
        #expect(answer.text.contains(token), "the client still sees the live answer")
        let placeholder = try await Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Team-Token: <TEAM_TOKEN>", "\(base)/me?again=1"])
        #expect(placeholder.text == "200", "a client that sends the placeholder reaches the upstream with the real value")
        server.signal(SIGINT)
        #expect(server.waitForExit() == 0)
        let text = try String(contentsOf: cassette, encoding: .utf8)
        #expect(!text.contains(token))
        let stored = try CassetteCodec().load(cassette).interactions[0]
        #expect(stored.request.headers["X-Team-Token"] == "<TEAM_TOKEN>")
        #expect(stored.response.headers["X-Echo"] == "<TEAM_TOKEN>")
        #expect(stored.response.body.text?.contains("<TEAM_TOKEN>") == true)
    }

    @Test("an expired interaction: Tapedeck-Warning under warn, a 599 under error", .requires(.curl))
    func expiredOverTheServer() async throws {
        let cassette = try Fixtures.temporaryDirectory().appendingPathComponent("old.json")
        try CassetteCodec().save(Cassette(interactions: [Interaction(
            recordedAt: "2026-01-01T00:00:00.000Z", request: CassetteRequest(method: "GET", url: "/old"),
            response: CassetteResponse(status: 200, body: Body(text: "old answer")))]), to: cassette)
        let home = cassette.deletingLastPathComponent().appendingPathComponent("home").path
        for (policy, expected) in [("warn", "tapedeck-warning: expired"), ("error", "599")] {
            let server = try TapedeckProcess(["replay", cassette.path, "--port", "0", "--expire-after", "30", "--on-expired", policy,
                                              "--now", "2026-06-01T00:00:00Z"], environment: ["TAPEDECK_HOME": home])
            let port = try server.waitUntilListening()
            let answer = try await Curl.run(["-i", "http://127.0.0.1:\(port)/old"])
            let log = server.stop()
            #expect(answer.text.lowercased().contains(expected), "\(policy): \(answer.text.prefix(200))")
            if policy == "warn" { #expect(log.contains("warning: expired"), "a log line says so: \(log)") }
        }
    }

    @Test("an upstream gzip body that does not decode is stored as received, marked encoded, and replayed exactly", .requires(.curl, .python3))
    func undecodableBodyKeptAsReceived() async throws {
        let script = """
            from http.server import BaseHTTPRequestHandler, HTTPServer
            class Handler(BaseHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_GET(self):
                    body = b"not gzip at all"
                    self.send_response(200)
                    self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
            server = HTTPServer(("127.0.0.1", 0), Handler)
            print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
            server.serve_forever()
            """
        let upstream = SpawnedProcess()
        upstream.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        upstream.arguments = ["python3", "-u", "-c", script]
        let output = Pipe()
        upstream.standardOutput = output
        try upstream.run()
        defer { kill(upstream.processIdentifier, SIGKILL); upstream.waitUntilExit() }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        let target = try #require(line.range(of: "http://").map { String(line[$0.lowerBound...].prefix { !$0.isWhitespace }) })
        let cassette = try Fixtures.temporaryDirectory().appendingPathComponent("bad-gzip.json")
        let (server, base) = try record(cassette, target: target)
        #expect(try await Curl.run(["\(base)/bad"]).text == "not gzip at all")
        server.signal(SIGINT)
        #expect(server.waitForExit() == 0)
        let stored = try CassetteCodec().load(cassette).interactions[0].response.body
        #expect(stored.isEncoded)
        #expect(stored.data == Data("not gzip at all".utf8))

        let replay = try TapedeckProcess(["replay", cassette.path, "--port", "0"],
                                         environment: ["TAPEDECK_HOME": cassette.deletingLastPathComponent().appendingPathComponent("home").path])
        defer { _ = replay.stop() }
        let port = try replay.waitUntilListening()
        #expect(try await Curl.run(["-H", "Accept-Encoding: gzip", "http://127.0.0.1:\(port)/bad"]).text == "not gzip at all")
        #expect(try await Curl.run(["http://127.0.0.1:\(port)/bad"]).text == "not gzip at all")
    }
}
