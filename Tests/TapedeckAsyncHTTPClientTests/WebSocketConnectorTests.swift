import Foundation
import HTTPTypes
import NIOSSL
import Tapedeck
import TapedeckAsyncHTTPClient
import TapedeckTestSupport
import TapedeckTesting
import Testing

/// The WebSocket connectors over real sockets: ``NIOWebSocketConnector`` against Python's
/// `websockets` (`scripts/ws_upstream.py`, which offers permessage-deflate), in plain and behind
/// TLS; ``RecordingWebSocketConnector`` recording through it; and ``CassetteWebSocketConnector``
/// replaying both what it recorded and what `tapedeck record` recorded of a Python client,
/// including a message off the recording.
@Suite struct WebSocketConnectorTests {
    private static func handshake(_ authority: String, _ path: String, scheme: String = "ws") -> HTTPRequest {
        HTTPRequest(method: .get, scheme: scheme, authority: authority, path: path)
    }

    private static func temporaryDirectory(_ name: String) throws -> URL {
        let directory = TestFiles.folder.appending(path: "tapedeck-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// What `scripts/ws_calls.py` prints of a conversation with `url`.
    private static func python(_ url: String, _ steps: [String]) throws -> String {
        let result = try ChildProcess.run(URL(filePath: "/usr/bin/env"), WebSocketCalls.arguments(url, steps: steps))
        #expect(result.status == 0, "\(result.output)")
        return result.output
    }

    @Test(.requires(.websockets)) func theNIOConnectorTalksToALiveService() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let chat = try await NIOWebSocketConnector().connect(Self.handshake(upstream.authority, "/live?x=1"))
        #expect(chat.handshakeResponse?.status == .switchingProtocols)
        #expect(try await chat.receive() == .text("welcome /live?x=1"))
        try await chat.send(.text("hello"))
        #expect(try await chat.receive() == .text("echo hello"))
        try await chat.send(.binary(Data([1, 2, 3])))
        #expect(try await chat.receive() == .binary(Data([3, 2, 1])))
        try await chat.send(.text("frag"))
        #expect(try await chat.receive() == .text("part one, part two"), "fragments come joined")
        try await chat.send(.text("extensions?"))
        let agreed = try await chat.receive()
        guard case .text(let extensions) = agreed else {
            Issue.record("not an answer: \(agreed)")
            return
        }
        #expect(extensions.hasPrefix("extensions permessage-deflate"), "compression is agreed: \(extensions)")
        try await chat.send(.text("close-me"))
        #expect(try await chat.receive() == .close(code: 4000, reason: "asked to close"))
        let closed = await #expect(throws: WebSocketClosedError.self) { try await chat.receive() }
        #expect(closed?.code == 4000)
    }

    @Test(.requires(.openssl, .websockets)) func theNIOConnectorSpeaksTLSAndReportsARefusedUpgrade() async throws {
        let directory = try Self.temporaryDirectory("nio-ws-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = try await LoopbackCertificate.make(in: directory)
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: ["--cert", certificate.path, "--key", key.path])
        defer { upstream.stop() }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificate.path)
        let chat = try await NIOWebSocketConnector(tlsConfiguration: tls).connect(Self.handshake(upstream.authority, "/secure", scheme: "wss"))
        #expect(try await chat.receive() == .text("welcome /secure"))
        try await chat.send(.text("over tls"))
        #expect(try await chat.receive() == .text("echo over tls"))
        try await chat.close(code: 1000, reason: "done")
        await #expect(throws: WebSocketClosedError.self) { try await chat.send(.text("after")) }

        // Without the test's certificate trusted, the handshake fails.
        await #expect(throws: (any Error).self) {
            try await NIOWebSocketConnector().connect(Self.handshake(upstream.authority, "/secure", scheme: "wss"))
        }
        // A plain HTTP service answers the upgrade 404: refused, with its status.
        let http = try ExampleUpstream()
        defer { http.stop() }
        let refused = await #expect(throws: WebSocketUpgradeRefused.self) {
            try await NIOWebSocketConnector().connect(Self.handshake(http.authority, "/anything"))
        }
        #expect(refused?.status == 404)
    }

    @Test(.requires(.websockets)) func aConversationRecordedInProcessReplaysInProcessAndOnTheReplayServer() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let directory = try Self.temporaryDirectory("ws-recording")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appending(path: "chat.json")

        let recorder = try RecordingWebSocketConnector(live: NIOWebSocketConnector(), cassette: cassette, mode: .all, environment: [:])
        let live = try await recorder.connect(Self.handshake(upstream.authority, "/rooms/a"))
        #expect(try await live.receive() == .text("welcome /rooms/a"))
        try await live.send(.text(#"{"op":"join","token":"s3cret"}"#))
        #expect(try await live.receive() == .text(#"echo {"op":"join","token":"s3cret"}"#))
        try await live.send(.binary(Data([1, 2, 3])))
        #expect(try await live.receive() == .binary(Data([3, 2, 1])))
        try await live.close(code: 1000, reason: "bye")
        try recorder.flush()

        let recorded = try CassetteCodec().load(cassette)
        #expect(recorded.interactions.count == 1)
        #expect(recorded.interactions.first?.response.status == 101)
        #expect(recorded.interactions.first?.websocket?.map(\.from) == [.server, .client, .server, .client, .server, .client])

        upstream.stop()
        // In process: the same conversation, then one that leaves the recording.
        let replayer = try CassetteWebSocketConnector(cassette: cassette)
        let replayed = try await replayer.connect(Self.handshake(upstream.authority, "/rooms/a"))
        #expect(try await replayed.receive() == .text("welcome /rooms/a"))
        try await replayed.send(.text(#"{"token":"s3cret","op":"join"}"#))
        #expect(try await replayed.receive() == .text(#"echo {"op":"join","token":"s3cret"}"#))
        try await replayed.send(.binary(Data([1, 2, 3])))
        #expect(try await replayed.receive() == .binary(Data([3, 2, 1])))
        try await replayed.close(code: 1000, reason: "bye")

        let off = try await replayer.connect(Self.handshake(upstream.authority, "/rooms/a"))
        #expect(try await off.receive() == .text("welcome /rooms/a"))
        try await off.send(.text("leave"))
        #expect(try await off.receive() == .close(code: 1008, reason: #"expected client text "{"op":"join","token":"s3cret"}"; got client text "leave""#))

        // The replay server plays the connector's recording to a Python client.
        let server = try TapedeckProcess(["replay", "--port", "0", cassette.path],
                                         environment: ["TAPEDECK_HOME": directory.appending(path: "home").path])
        defer { _ = server.stop() }
        let port = try server.waitUntilListening()
        let heard = try Self.python("ws://127.0.0.1:\(port)/rooms/a", ["recv", #"send:{"op":"join","token":"s3cret"}"#, "recv",
                                                                     "bin:010203", "recv", "close:1000:bye"])
        // The recording ends with the client's close: the server answers it with the code alone.
        #expect(heard == ["text welcome /rooms/a", #"text echo {"op":"join","token":"s3cret"}"#, "binary 030201", "closed 1000 ", ""]
            .joined(separator: "\n"), "\(heard)")
    }

    @Test(.requires(.websockets)) func whatTapedeckRecordRecordedReplaysThroughTheConnector() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let directory = try Self.temporaryDirectory("ws-record-replay")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appending(path: "chat.json")
        let recorder = try TapedeckProcess(["record", "--port", "0", "--target", upstream.baseURL, cassette.path],
                                           environment: ["TAPEDECK_HOME": directory.appending(path: "home").path])
        let port = try recorder.waitUntilListening()
        let heard = try Self.python("ws://127.0.0.1:\(port)/chat", ["recv", "send:hello", "recv", "send:frag", "recv", "close:1000:done"])
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit() == 0, "\(recorder.standardError())")
        #expect(heard.hasPrefix("text welcome /chat\ntext echo hello\ntext part one, part two\n"), "\(heard)")
        upstream.stop()

        let connector = try CassetteWebSocketConnector(cassette: cassette)
        let chat = try await connector.connect(Self.handshake(upstream.authority, "/chat"))
        #expect(try await chat.receive() == .text("welcome /chat"))
        try await chat.send(.text("hello"))
        #expect(try await chat.receive() == .text("echo hello"))
        try await chat.send(.text("frag"))
        #expect(try await chat.receive() == .text("part one, part two"))
        try await chat.close(code: 1000, reason: "done")

        let off = try await connector.connect(Self.handshake(upstream.authority, "/chat"))
        #expect(try await off.receive() == .text("welcome /chat"))
        try await off.send(.text("goodbye"))
        #expect(try await off.receive() == .close(code: 1008, reason: #"expected client text "hello"; got client text "goodbye""#))
    }

    /// The test helpers (`.cassette(...)` and `useCassette`) give a WebSocket connector on the
    /// test's cassette: recording through the live connector in a recording mode, replaying with
    /// the test's own playback state otherwise, so an unplayed conversation is reported.
    @Test(.requires(.websockets)) func aTestCassetteRecordsAndReplaysConversations() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let directory = try Self.temporaryDirectory("ws-trait")
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = try CassetteLocation(name: "chat", directory: directory, filePath: #filePath, environment: [:])
        let talk: @Sendable (any WebSocketConnector) async throws -> [WebSocketMessage.Content] = { connector in
            let chat = try await connector.connect(Self.handshake(upstream.authority, "/trait"))
            var heard = [try await chat.receive()]
            try await chat.send(.text("hi"))
            heard.append(try await chat.receive())
            try await chat.close(code: 1000, reason: "done")
            return heard
        }

        let recording = try TestCassette(location: location, mode: .all, environment: [:])
        let recorded = try await TestCassette.$current.withValue(recording) {
            try await talk(try TestCassette.webSocketConnector(live: NIOWebSocketConnector()))
        }
        #expect(recorded == [.text("welcome /trait"), .text("echo hi")])
        try recording.finish()

        upstream.stop()
        let replaying = try TestCassette(location: location, mode: .replay, environment: [:])
        #expect(replaying.unplayedInteractions().count == 1)
        var built = false
        let replayed = try await TestCassette.$current.withValue(replaying) {
            try await talk(try TestCassette.webSocketConnector(live: { () -> any WebSocketConnector in
                built = true
                return NIOWebSocketConnector()
            }()))
        }
        #expect(replayed == recorded)
        #expect(!built, "no live connector is made when replaying")
        #expect(replaying.unplayedInteractions().isEmpty, "the conversation counts as played")
        #expect(throws: TestCassetteMissingTrait.self) { try TestCassette.webSocketConnector(live: NIOWebSocketConnector()) }
    }
}
