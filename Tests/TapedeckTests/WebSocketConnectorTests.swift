import Foundation
import HTTPTypes
import Tapedeck
import TapedeckTestSupport
import Testing

/// ``CassetteWebSocketConnector`` replays a conversation by the replay server's rules, with no
/// socket; ``URLSessionWebSocketConnector`` talks to a live `websockets` service.
@Suite struct WebSocketConnectorTests {
    private static let cassette = Data(#"""
        {"version": 1, "interactions": [{
          "request": {"method": "GET", "url": "http://chat.example.test/rooms/a"},
          "response": {"status": 101},
          "websocket": [
            {"from": "server", "atMs": 0, "text": "welcome"},
            {"from": "client", "atMs": 5, "text": "{\"op\":\"join\",\"room\":\"a\"}"},
            {"from": "server", "atMs": 9, "text": "joined a"},
            {"from": "server", "atMs": 12, "base64": "AAEC"},
            {"from": "client", "atMs": 20, "close": 1000, "reason": "bye"},
            {"from": "server", "atMs": 21, "close": 1000, "reason": "bye"}
          ]}]}
        """#.utf8)

    private func connector() throws -> CassetteWebSocketConnector {
        CassetteWebSocketConnector(cassette: try CassetteCodec().decode(Self.cassette))
    }

    private let handshake = HTTPRequest(method: .get, scheme: "ws", authority: "chat.example.test", path: "/rooms/a")

    @Test func aRecordedConversationIsReplayedInOrder() async throws {
        let chat = try await connector().connect(handshake)
        #expect(try await chat.receive() == .text("welcome"))
        try await chat.send(.text(#"{ "room": "a", "op": "join" }"#))
        #expect(try await chat.receive() == .text("joined a"))
        #expect(try await chat.receive() == .binary(Data([0, 1, 2])))
        try await chat.close(code: 1000, reason: "bye")
        await #expect(throws: WebSocketClosedError.self) { try await chat.receive() }
    }

    @Test func aMessageOffTheRecordingClosesWith1008NamingTheRecordedMessage() async throws {
        let chat = try await connector().connect(handshake)
        #expect(try await chat.receive() == .text("welcome"))
        try await chat.send(.text("leave"))
        #expect(try await chat.receive() == .close(code: 1008, reason: #"expected client text "{"op":"join","room":"a"}"; got client text "leave""#))
        let closed = await #expect(throws: WebSocketClosedError.self) { try await chat.send(.text("again")) }
        #expect(closed?.code == 1008)
    }

    @Test func aHandshakeNothingMatchesThrowsTheDiagnosis() async throws {
        let other = HTTPRequest(method: .get, scheme: "wss", authority: "chat.example.test", path: "/rooms/b")
        let error = await #expect(throws: UnmatchedRequestError.self) { try await connector().connect(other) }
        #expect(error?.description.contains("/rooms/a") == true)
    }

    /// Whether `URLSessionWebSocketTask` works here: always on Apple platforms; on Linux only when
    /// the libcurl FoundationNetworking uses was built with WebSockets (Debian 12's is not).
    static let liveWebSocketsWork: Bool = {
        #if canImport(Darwin)
        return true
        #else
        let protocols = (try? ChildProcess.run(URL(filePath: "/usr/bin/env"), ["curl", "--version"]))?.output ?? ""
        return protocols.split(separator: "\n").contains { $0.hasPrefix("Protocols:") && $0.split(separator: " ").contains("ws") }
        #endif
    }()

    @Test(.requires(.websockets), .enabled(if: liveWebSocketsWork, "FoundationNetworking's libcurl has no WebSocket support here"))
    func theLiveConnectorTalksToAWebSocketService() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let request = HTTPRequest(method: .get, scheme: "ws", authority: upstream.authority, path: "/live")
        let chat = try await URLSessionWebSocketConnector().connect(request)
        #expect(try await chat.receive() == .text("welcome /live"))
        try await chat.send(.text("hello"))
        #expect(try await chat.receive() == .text("echo hello"))
        try await chat.send(.binary(Data([1, 2, 3])))
        #expect(try await chat.receive() == .binary(Data([3, 2, 1])))
        try await chat.close(code: 1000, reason: "done")
    }
}
