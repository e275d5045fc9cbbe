import Foundation
import HTTPTypes
import Tapedeck
import TapedeckTestSupport
import Testing

@Suite("RecordingConnector: recording in process through URLSession", .serialized)
struct RecordingConnectorTests {
    func get(_ upstream: ExampleUpstream, _ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "http", authority: upstream.authority, path: path)
    }

    @Test("records live exchanges through URLSession, then replays them with the upstream gone", .requires(.python3))
    func recordThenReplay() async throws {
        let upstream = try ExampleUpstream()
        let file = try makeTemporaryDirectory().appendingPathComponent("live.json")
        let recorder = try RecordingConnector(live: URLSessionConnector(), cassette: file, mode: .all, environment: [:])
        var post = HTTPRequest(method: .post, scheme: "http", authority: upstream.authority, path: "/postBodyData")
        post.headerFields[.contentType] = "application/json"
        post.headerFields[.authorization] = "Bearer live-secret"
        let (_, liveText) = try await recorder.send(get(upstream, "/plaintext?name=Ada"), body: nil)
        let (_, liveGzip) = try await recorder.send(get(upstream, "/gzip-json"), body: nil)
        let (_, liveEcho) = try await recorder.send(post, body: Data(#"{"b": 2, "a": 1}"#.utf8))
        try recorder.flush()
        upstream.stop()

        let saved = try CassetteCodec().load(file)
        #expect(saved.interactions.count == 3)
        #expect(saved.interactions[2].request.headers["Authorization"] == "<redacted>")
        #expect(saved.interactions.allSatisfy { $0.timing != nil })

        let replay = try RecordingConnector(live: URLSessionConnector(), cassette: file, mode: .replay, environment: [:])
        #expect(try await replay.send(get(upstream, "/plaintext?name=Ada"), body: nil).1 == liveText)
        #expect(try await replay.send(get(upstream, "/gzip-json"), body: nil).1 == liveGzip)
        post.headerFields[.authorization] = "Bearer another-secret"
        #expect(try await replay.send(post, body: Data(#"{"a": 1, "b": 2}"#.utf8)).1 == liveEcho)
    }

    @Test("TAPEDECK_MODE=record re-records a cassette the code opens in replay mode", .requires(.python3))
    func environmentOverride() async throws {
        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let file = try makeTemporaryDirectory().appendingPathComponent("env.json")
        try CassetteCodec().save(Cassette(), to: file)
        let connector = try RecordingConnector(live: URLSessionConnector(), cassette: file, mode: .replay,
                                               environment: ["TAPEDECK_MODE": "record"])
        #expect(connector.mode == .all)
        _ = try await connector.send(get(upstream, "/plaintext?name=Env"), body: nil)
        try connector.flush()
        #expect(try CassetteCodec().load(file).interactions.count == 1)
    }

    @Test("new-episodes serves what is recorded and records only the new request", .requires(.python3))
    func newEpisodes() async throws {
        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let file = try makeTemporaryDirectory().appendingPathComponent("episodes.json")
        let first = try RecordingConnector(cassette: file, mode: .all, environment: [:])
        _ = try await first.send(get(upstream, "/plaintext?name=One"), body: nil)
        try first.finish()
        let second = try RecordingConnector(cassette: file, mode: .newEpisodes, environment: [:])
        _ = try await second.send(get(upstream, "/plaintext?name=One"), body: nil)
        _ = try await second.send(get(upstream, "/plaintext?name=Two"), body: nil)
        try second.flush()
        let urls = try CassetteCodec().load(file).interactions.map(\.request.url)
        #expect(urls == ["\(upstream.baseURL)/plaintext?name=One", "\(upstream.baseURL)/plaintext?name=Two"])
    }

    @Test("an unreachable live service surfaces the live connector's error and records nothing")
    func unreachable() async throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("down.json")
        let connector = try RecordingConnector(cassette: file, mode: .all, environment: [:])
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:1", path: "/")
        await #expect(throws: (any Error).self) { try await connector.send(request, body: nil) }
        try connector.flush()
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
