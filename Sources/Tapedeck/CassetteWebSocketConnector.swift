import Foundation
import HTTPTypes
import TapedeckCore

/// Replays recorded WebSocket conversations in process, by the replay server's rules (SPEC
/// section 13, ``WebSocketConversation``): the handshake matches as any request does (an
/// ``UnmatchedRequestError`` on a miss), then the server's messages come in order, each one the
/// recording shows after a client message only once that message was sent and matched; a
/// message off the recording closes the conversation with 1008 and a reason naming the recorded
/// message. Stubs with a `websocket` conversation answer too.
///
/// ```swift
/// let connector = try CassetteWebSocketConnector(cassette: URL(filePath: "cassettes/chat.json"))
/// let chat = try await connector.connect(HTTPRequest(method: .get, scheme: "ws", authority: "chat.example.test", path: "/rooms/a"))
/// try await chat.send(.text(#"{"op":"join"}"#))
/// let answer = try await chat.receive()
/// ```
public final class CassetteWebSocketConnector: WebSocketConnector {
    /// The player holding the cassette and the playback positions.
    package let player: Player
    private let clock: any Clock<Duration>

    /// Loads a cassette file; `options.latency` paces the server's messages as on the replay server.
    public convenience init(cassette file: URL, options: PlaybackOptions = PlaybackOptions(), stubs: [Stub] = [],
                            codec: CassetteCodec = CassetteCodec(), clock: any Clock<Duration> = ContinuousClock()) throws {
        self.init(cassette: try codec.load(file), name: file.path, options: options, stubs: stubs, clock: clock)
    }

    /// Replays a cassette already in memory (an empty one, `Cassette()`, to serve stubs only).
    public convenience init(cassette: Cassette, name: String = "cassette", options: PlaybackOptions = PlaybackOptions(), stubs: [Stub] = [],
                            clock: any Clock<Duration> = ContinuousClock()) {
        self.init(player: Player(cassette: cassette, name: name, options: options, stubs: stubs), clock: clock)
    }

    /// Plays on a player another connector holds (a test cassette's), sharing its positions.
    package init(player: Player, clock: any Clock<Duration> = ContinuousClock()) {
        self.player = player
        self.clock = clock
    }

    /// Opens the recorded conversation the handshake matches.
    ///
    /// - Throws: ``UnmatchedRequestError`` when nothing matches; ``WebSocketHandshakeError`` when what
    ///   matches is not a WebSocket conversation.
    public func connect(_ request: HTTPRequest) async throws -> any WebSocketConnection {
        let handshake = CassetteRequest(webSocketHandshake: request)
        switch player.play(handshake) {
        case .unmatched(let diagnosis):
            throw UnmatchedRequestError(diagnosis: diagnosis)
        case .played(let playback):
            return try await ReplayedWebSocket.open(playback, handshake: handshake, clock: clock)
        }
    }

    /// Puts playback and stub scenarios back to the start.
    public func reset() {
        player.reset()
    }
}

/// A handshake whose recorded answer is not a WebSocket upgrade.
public struct WebSocketHandshakeError: Error, CustomStringConvertible, Sendable {
    /// The handshake's URL.
    public let url: String
    /// The status recorded for it.
    public let status: Int

    public var description: String { "\(url) was answered \(status), not with a WebSocket conversation" }
}

extension CassetteRequest {
    /// A WebSocket opening handshake as the cassette keeps it: `ws` and `wss` recorded as `http`
    /// and `https`, as the servers record them.
    init(webSocketHandshake request: HTTPRequest) {
        var handshake = request
        handshake.scheme = handshake.scheme.map(WebSocketMessage.handshakeScheme)
        self.init(handshake, body: nil)
    }
}

/// A replayed conversation: the actions of ``WebSocketConversation`` as an inbox of server
/// messages, each handed to ``receive()`` after its delay.
actor ReplayedWebSocket: WebSocketConnection {
    private var conversation: WebSocketConversation
    private let inbox = WebSocketInbox<WebSocketConversation.Action>()
    private var closed: WebSocketClosedError?
    private let clock: any Clock<Duration>

    private init(_ conversation: WebSocketConversation, clock: any Clock<Duration>) {
        self.clock = clock
        var started = conversation
        for action in started.start() { inbox.deliver(action) }
        self.conversation = started
    }

    /// The conversation `playback` holds, once its handshake's delay has passed.
    ///
    /// - Throws: ``WebSocketHandshakeError`` when what matched `handshake` is not a WebSocket conversation.
    static func open(_ playback: Playback, handshake: CassetteRequest, clock: any Clock<Duration>) async throws -> ReplayedWebSocket {
        guard let conversation = playback.conversation else {
            throw WebSocketHandshakeError(url: handshake.url, status: playback.interaction.response.status)
        }
        try await wait(playback.delay.head, on: clock)
        return ReplayedWebSocket(conversation, clock: clock)
    }

    func send(_ message: WebSocketMessage.Content) async throws {
        if let closed { throw closed }
        for action in conversation.received(message) { inbox.deliver(action) }
    }

    func receive() async throws -> WebSocketMessage.Content {
        if let closed { throw closed }
        switch await inbox.next() {
        case .send(let content, let after):
            try await wait(after, on: clock)
            return content
        case .close(let code, let reason, let after):
            try await wait(after, on: clock)
            closed = WebSocketClosedError(code: code, reason: reason)
            return .close(code: code, reason: reason)
        }
    }

    func close(code: UInt16, reason: String) async throws {
        guard closed == nil else { return }
        for action in conversation.received(.close(code: code, reason: reason)) { inbox.deliver(action) }
        closed = WebSocketClosedError(code: code, reason: reason)
    }
}
