import Foundation
import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// A kept HTTP/2 upstream connection the upstream is closing: `scripts/h2_goaway_upstream.py`
/// answers one stream per connection, then sends GOAWAY and keeps the socket open a while, so the
/// proxy's next stream on that connection is refused. The request goes again on a new connection,
/// once, as over HTTP/1.1 when a kept connection closes before answering.
@Suite struct HTTP2UpstreamRetryTests {
    @Test(.requires(.python3, .h2load)) func aStreamRefusedByAKeptConnectionGoesAgainOnANewOne() async throws {
        let upstream = try ExampleUpstream(script: "scripts/h2_goaway_upstream.py", arguments: ["--linger", "5"])
        defer { upstream.stop() }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appending(path: "retried.json")
        try await RecordHarness.run(settings: RecordSettings(cassette: cassette, target: try ReverseProxyTarget(upstream.baseURL))) { harness in
            // h2load (nghttp2-client): three requests one after another on one HTTP/2 connection.
            let load = try await Subprocess.run(executable: "/usr/bin/env",
                                                arguments: ["h2load", "-n", "3", "-c", "1", "-m", "1", harness.base + "/again"])
            #expect(load.text.contains("3 succeeded, 0 failed"), "\(load.text) \(load.error)")
            #expect(load.text.contains("status codes: 3 2xx"), "\(load.text)")
            try await waitUntil { harness.responder.recorder.interactionCount == 3 }
        }
        let bodies = try CassetteCodec().load(cassette).interactions.map { String(decoding: $0.response.body.data, as: UTF8.self) }
        #expect(bodies == ["connection 1 stream 1", "connection 2 stream 1", "connection 3 stream 1"],
                "each request after the first was refused on the kept connection and answered on a new one")
    }

    /// Streams the upstream does not process on a connection just opened (beyond the last stream
    /// its GOAWAY names) go again on new connections too, each a bounded number of times.
    @Test(.requires(.python3, .nghttp)) func streamsBeyondAFreshConnectionsGoAwayGoAgainOnNewOnes() async throws {
        let upstream = try ExampleUpstream(script: "scripts/h2_goaway_upstream.py", arguments: ["--linger", "5"])
        defer { upstream.stop() }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appending(path: "refused.json")
        try await RecordHarness.run(settings: RecordSettings(cassette: cassette, target: try ReverseProxyTarget(upstream.baseURL))) { harness in
            // nghttp (nghttp2-client): three streams at once on one HTTP/2 connection.
            let three = try await Subprocess.run(executable: "/usr/bin/env", arguments: [
                "nghttp", "--stat", harness.base + "/a", harness.base + "/b", harness.base + "/c"])
            #expect(three.text.contains("connection 1 stream 1") && three.text.contains("connection 2 stream 1")
                    && three.text.contains("connection 3 stream 1"), "\(three.text) \(three.error)")
            try await waitUntil { harness.responder.recorder.interactionCount == 3 }
        }
        let recorded = try CassetteCodec().load(cassette).interactions
        #expect(recorded.map(\.response.status) == [200, 200, 200])
        #expect(Set(recorded.map { String(decoding: $0.response.body.data, as: UTF8.self) })
                == ["connection 1 stream 1", "connection 2 stream 1", "connection 3 stream 1"])
    }
}
