import Foundation
import TapedeckTestSupport
import Testing

/// Two `tapedeck replay` processes behind a real nginx that hashes on `Tapedeck-Session`, as the
/// the scale-out section of docs/replay-server.md says: each session walks its own sequence on one node, and
/// session-scoped stubs and `verify` work through the balancer.
@Suite(.enabled(if: NginxServer.path != nil, Comment(rawValue: NginxServer.missing)))
struct ScaleOutTests {
    /// Two recorded answers to the same request: a session that walks its own sequence sees one, then two.
    private static let counter = #"""
        {"version": 1, "interactions": [
          {"request": {"method": "GET", "url": "/counter"}, "response": {"status": 200, "body": {"text": "one"}}},
          {"request": {"method": "GET", "url": "/counter"}, "response": {"status": 200, "body": {"text": "two"}}}]}
        """#

    private func curl(_ arguments: [String]) throws -> String {
        try ChildProcess.run(URL(filePath: "/usr/bin/env"), ["curl", "--silent", "--max-time", "10"] + arguments).output
    }

    @Test(.requires(.curl)) func sessionsStayOnOneNodeBehindNginx() throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appending(path: "counter.json")
        try Data(Self.counter.utf8).write(to: cassette)
        // nginx sends `Host: tapedeck_replicas` (the upstream's name): the admin API answers it once named.
        let nodes = try (0..<2).map { _ in
            try TapedeckProcess(["replay", "--port", "0", "--admin-host", "tapedeck_replicas", cassette.path])
        }
        defer { nodes.forEach { $0.stop() } }
        let ports = try nodes.map { try $0.waitUntilListening() }
        // A free port: bound for a moment by a socket that never listens, then let go for nginx.
        let port = try RefusingPort().port
        let balancer = try NginxServer(http: """
            upstream tapedeck_replicas { hash $http_tapedeck_session consistent; \(ports.map { "server 127.0.0.1:\($0);" }.joined(separator: " ")) }
            server { listen 127.0.0.1:\(port); location / { proxy_pass http://tapedeck_replicas; proxy_http_version 1.1; } }
            """, in: directory)
        defer { balancer.stop() }
        let base = "http://127.0.0.1:\(port)"
        var health = ""
        for _ in 0..<100 where !health.contains("\"status\" : \"ok\"") {
            health = (try? curl([base + "/__tapedeck/health"])) ?? ""
            usleep(50_000)
        }
        #expect(health.contains("\"status\" : \"ok\""), "nginx did not come up: \(health)")

        // Twenty sessions, each twice: every one walks its own sequence, whichever node it hashes to.
        for session in (0..<20).map({ "session-\($0)" }) {
            #expect(try curl(["-H", "Tapedeck-Session: \(session)", base + "/counter"]) == "one", "\(session)")
            #expect(try curl(["-H", "Tapedeck-Session: \(session)", base + "/counter"]) == "two", "\(session)")
        }
        // A session-scoped stub added through the balancer answers that session, and verify counts it there.
        let stub = #"{"request": {"path": "/scoped"}, "response": {"status": 200, "body": {"text": "mine"}}}"#
        let added = try curl(["-X", "POST", "-H", "Content-Type: application/json", "-H", "Tapedeck-Session: s-stub",
                              "--data", stub, base + "/__tapedeck/stubs"])
        #expect(added.contains("ids"), "\(added)")
        for _ in 0..<3 { #expect(try curl(["-H", "Tapedeck-Session: s-stub", base + "/scoped"]) == "mine") }
        let verify = try curl(["-X", "POST", "-H", "Content-Type: application/json", "-H", "Tapedeck-Session: s-stub",
                               "--data", #"{"path": "/scoped"}"#, base + "/__tapedeck/verify"])
        #expect(verify.contains("\"count\" : 3"), "\(verify)")
    }
}
