import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Tapedeck
@_spi(Internals) import TapedeckCore
import TapedeckNIO

/// The live ``/Tapedeck/WebSocketConnector`` on SwiftNIO, for server-side Swift: code written
/// against AsyncHTTPClient or SwiftNIO (and code on Linux, where URLSession's WebSocket depends on
/// libcurl) talks WebSocket through the same protocol as ``/Tapedeck/CassetteWebSocketConnector``
/// and ``/Tapedeck/RecordingWebSocketConnector``, so a test swaps the live connector for a cassette.
///
/// It speaks RFC 6455 over HTTP/1.1 (`ws`, or `wss` with `tlsConfiguration`), offers
/// `permessage-deflate`, answers pings, joins fragments and holds the server to the protocol as
/// the recording proxy does (the same reader).
///
/// ```swift
/// let connector = NIOWebSocketConnector()
/// let chat = try await connector.connect(HTTPRequest(method: .get, scheme: "wss", authority: "chat.example.com", path: "/rooms/a"))
/// ```
public struct NIOWebSocketConnector: WebSocketConnector {
    private let eventLoopGroup: any EventLoopGroup
    private let tlsConfiguration: TLSConfiguration
    private let maxMessageSize: Int

    /// - Parameters:
    ///   - eventLoopGroup: where connections run (NIO's shared group by default).
    ///   - tlsConfiguration: for `wss` (the system's trust roots by default).
    ///   - maxMessageSize: the largest message taken from the server, fragments joined and
    ///     decompressed; a larger one closes the conversation with 1009.
    public init(eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                tlsConfiguration: TLSConfiguration = .makeClientConfiguration(), maxMessageSize: Int = 16 << 20) {
        self.eventLoopGroup = eventLoopGroup
        self.tlsConfiguration = tlsConfiguration
        self.maxMessageSize = maxMessageSize
    }

    /// Opens the conversation: `request`'s scheme (`ws`/`http` or `wss`/`https`), authority,
    /// path and headers make the upgrade request.
    ///
    /// - Throws: ``WebSocketUpgradeRefused`` when the service answers otherwise than 101; the
    ///   connection's error when it cannot be reached.
    public func connect(_ request: HTTPRequest) async throws -> any WebSocketConnection {
        let secure = ["wss", "https"].contains(request.scheme?.lowercased())
        guard let authority = request.authority,
              let parts = URLComponents(string: "ws://\(authority)"), let host = parts.host, !host.isEmpty else {
            throw WebSocketUpgradeRefused(status: 0, body: "no host to connect to in \(request.authority ?? "(no authority)")")
        }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: request.path ?? "/")
        head.headers.add(name: "Host", value: authority)
        for field in request.headerFields { head.headers.add(name: field.name.rawName, value: field.value) }
        let key = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) }).base64EncodedString()
        let inbox = WebSocketInbox<Result<WebSocketMessage.Content, any Error>>()
        let answer = try await WebSocketClientUpgrade.open(
            host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: parts.port ?? (secure ? 443 : 80),
            tls: secure ? try NIOSSLContext(configuration: tlsConfiguration) : nil, head: head, key: key,
            maxMessageSize: maxMessageSize, on: eventLoopGroup.next()
        ) { operations in
            try operations.addHandler(WebSocketInboxHandler(inbox: inbox))
        }.get()
        switch answer {
        case .refused(let head, let body):
            throw WebSocketUpgradeRefused(status: Int(head.status.code), body: String(buffer: body))
        case .upgraded(let head, let channel):
            return NIOWebSocketConnection(channel: channel, inbox: inbox,
                                          handshakeResponse: HTTPResponse(status: .init(code: Int(head.status.code)),
                                                                          headerFields: HTTPFields(head.headers)))
        }
    }
}

/// The service answered the upgrade otherwise than 101 (or there was nothing to connect to).
public struct WebSocketUpgradeRefused: Error, CustomStringConvertible, Sendable {
    /// The status it answered (0 when there was no service to ask).
    public let status: Int
    /// The body of its answer.
    public let body: String

    public var description: String {
        status == 0 ? body : "the WebSocket upgrade was answered \(status)" + (body.isEmpty ? "" : ": \(body)")
    }
}

/// A conversation on a SwiftNIO channel: messages come through the inbox the channel's
/// ``WebSocketInboxHandler`` fills, and go out as whole messages through the reader.
final class NIOWebSocketConnection: WebSocketConnection {
    let handshakeResponse: HTTPResponse?
    private let channel: any Channel
    private let inbox: WebSocketInbox<Result<WebSocketMessage.Content, any Error>>
    /// Set once either side closed: later calls throw it.
    private let closed = Locked<WebSocketClosedError?>(nil)

    init(channel: any Channel, inbox: WebSocketInbox<Result<WebSocketMessage.Content, any Error>>, handshakeResponse: HTTPResponse) {
        self.channel = channel
        self.inbox = inbox
        self.handshakeResponse = handshakeResponse
    }

    func send(_ message: WebSocketMessage.Content) async throws {
        if case .close(let code, let reason) = message { return try await close(code: code ?? 1000, reason: reason) }
        if let closed = closed.withLock({ $0 }) { throw closed }
        try await channel.writeAndFlush(message).get()
    }

    func receive() async throws -> WebSocketMessage.Content {
        if let closed = closed.withLock({ $0 }) { throw closed }
        let message = try await inbox.next().get()
        if case .close(let code, let reason) = message {
            closed.withLock { $0 = $0 ?? WebSocketClosedError(code: code, reason: reason) }
        }
        return message
    }

    /// Sends the close frame and ends the connection once the service answered it (or at once
    /// when the service closed first).
    func close(code: UInt16, reason: String) async throws {
        let first = closed.withLock { closed in
            defer { closed = closed ?? WebSocketClosedError(code: code, reason: reason) }
            return closed == nil
        }
        guard first else { return }
        try? await channel.writeAndFlush(WebSocketMessage.Content.close(code: code, reason: reason)).get()
        // The service closes the connection after answering the close frame; give it a moment.
        let channel = channel
        let deadline = channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        try? await channel.closeFuture.get()
        deadline.cancel()
    }
}

/// The last handler of a connector's connection: whole messages into the conversation's inbox;
/// the service's close frame answered (the reader in front sends none when this side closed
/// first); the end of the connection or a broken protocol as an error for the next receive.
final class WebSocketInboxHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketMessage.Content
    typealias OutboundOut = WebSocketMessage.Content

    private let inbox: WebSocketInbox<Result<WebSocketMessage.Content, any Error>>

    init(inbox: WebSocketInbox<Result<WebSocketMessage.Content, any Error>>) {
        self.inbox = inbox
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        inbox.deliver(.success(message))
        if case .close(let code, _) = message {
            context.writeAndFlush(wrapOutboundOut(.close(code: code, reason: "")), promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let violation = error as? WebSocketMessageReader.Violation {
            inbox.deliver(.failure(WebSocketClosedError(code: violation.code, reason: "the service broke the protocol: \(violation.reason)")))
        } else {
            inbox.deliver(.failure(error))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbox.deliver(.failure(WebSocketClosedError(code: 1006, reason: "the connection closed")))
        context.fireChannelInactive()
    }
}
