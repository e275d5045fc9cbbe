import Foundation
import HTTPTypes

/// Opens WebSocket conversations: the connector's counterpart of ``HTTPConnector`` for code that
/// talks WebSocket. Production code injects a live connector (``URLSessionWebSocketConnector``),
/// tests a ``CassetteWebSocketConnector``. URLProtocol cannot intercept `URLSessionWebSocketTask`,
/// so this seam is how a test puts a cassette in the live socket's place.
public protocol WebSocketConnector: Sendable {
    /// Opens a conversation with the opening handshake `request` (`GET`, with the `ws`/`wss`
    /// or `http`/`https` scheme, the authority and the path).
    func connect(_ request: HTTPRequest) async throws -> any WebSocketConnection
}

/// One open WebSocket conversation, in whole messages.
public protocol WebSocketConnection: Sendable {
    /// Sends a text or binary message.
    func send(_ message: WebSocketMessage.Content) async throws
    /// The next message from the server; a `.close` once the server closed (and then
    /// ``WebSocketClosedError`` for every later call).
    func receive() async throws -> WebSocketMessage.Content
    /// Closes the conversation with a code (1000 when it ended normally) and a reason.
    func close(code: UInt16, reason: String) async throws
    /// The server's answer to the opening handshake (101 and its headers) where the connection
    /// knows it; a recording keeps its headers. Nil by default.
    var handshakeResponse: HTTPResponse? { get }
}

extension WebSocketConnection {
    /// Nil: the connection does not know the handshake's answer.
    public var handshakeResponse: HTTPResponse? { nil }
}

/// A receive or send on a conversation that was closed.
public struct WebSocketClosedError: Error, CustomStringConvertible, Sendable {
    /// The close code, when the closing frame had one.
    public let code: UInt16?
    /// The close reason.
    public let reason: String

    /// A conversation closed with `code` (nil when the close frame had none) and `reason`.
    public init(code: UInt16?, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String {
        "the WebSocket conversation was closed" + (code.map { " with \($0)" } ?? "") + (reason.isEmpty ? "" : ": \(reason)")
    }
}
