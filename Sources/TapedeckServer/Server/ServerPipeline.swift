import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import NIOTLS
import NIOWebSocket
import TapedeckCore
import TapedeckNIO

/// Builds the handlers of a connection, and rebuilds them inside an intercepted TLS tunnel.
enum ServerPipeline {
    /// Adds the handlers for a new connection: HTTP/1.1, or HTTP/2 by prior knowledge.
    static func configure(channel: any Channel, front: any Responder, configuration: ServerConfiguration) throws {
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(ConnectionReadHandler(idleTimeout: configuration.idleTimeout))
        try addEitherVersion(operations, front: front, configuration: configuration, origin: nil)
    }

    /// Adds what serves a plain connection or tunnel once its first bytes say which HTTP it speaks.
    private static func addEitherVersion(_ operations: ChannelPipeline.SynchronousOperations, front: any Responder,
                                         configuration: ServerConfiguration, origin: String?) throws {
        try operations.addHandler(HTTPVersionSniffer { operations, isHTTP2 in
            if isHTTP2 {
                try addHTTP2Handlers(operations, front: front, configuration: configuration, origin: origin)
            } else {
                try addHTTPHandlers(operations, front: front, configuration: configuration, origin: origin)
            }
        })
    }

    /// Adds the HTTP/2 connection handler; each stream the client opens is one exchange, served by
    /// the same ``ExchangeHandler`` as an HTTP/1.1 connection, behind SwiftNIO's translation of
    /// HTTP/2 frames into HTTP/1 request parts. Proxy authentication, sessions, latency, the
    /// journal and the admin API therefore work per stream.
    static func addHTTP2Handlers(_ operations: ChannelPipeline.SynchronousOperations, front: any Responder,
                                 configuration: ServerConfiguration, origin: String?) throws {
        // The read handling of an HTTP/1.1 connection holds reads between answers; HTTP/2 reads on
        // for every stream, and SwiftNIO's HTTP/2 handler applies flow control per stream.
        if let reads = try? operations.handler(type: ConnectionReadHandler.self) {
            operations.removeHandler(reads, promise: nil)
        }
        // The streams share one scope, so the recording proxy forwards them on one upstream HTTP/2
        // connection (or HTTP/1.1 connections it reuses, to an upstream without HTTP/2).
        let scope = NIOLoopBound(ConnectionScope(), eventLoop: operations.eventLoop)
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: Self.maxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: Self.http2HeaderBlockLimit),
            // WebSocket over HTTP/2 (RFC 8441), through ExtendedConnect.
            HTTP2Setting(parameter: .enableConnectProtocol, value: 1),
            HTTP2Setting(parameter: .initialWindowSize, value: Self.streamWindowSize),
        ]
        // Room for a header block of the limit in frames of the default size (16 KiB).
        connection.maximumSequentialContinuationFrames = Self.http2HeaderBlockLimit / 16_384
        // Windows given back as each stream reads its DATA frames.
        connection.targetWindowSize = Self.connectionWindowSize
        var stream = NIOHTTP2Handler.StreamConfiguration()
        stream.targetWindowSize = Self.streamWindowSize
        try operations.addHandler(HTTP2SettingsAckAhead())
        let idleClose = HTTP2IdleClose(eventLoop: operations.eventLoop, idleTimeout: configuration.idleTimeout)
        let floodGuard = WindowUpdateFloodGuard(streams: idleClose.streams)
        let guardOnLoop = NIOLoopBound(floodGuard, eventLoop: operations.eventLoop)
        _ = try operations.configureHTTP2Pipeline(mode: .server, connectionConfiguration: connection,
                                                  streamConfiguration: stream, streamDelegate: idleClose.streams) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandlers([
                    WindowUpdateFloodGuard.StreamCounter(connection: guardOnLoop.value),
                    ExtendedConnect(),
                    HTTP2FramePayloadToHTTP1ServerCodec(),
                    ExchangeHandler(front: front, configuration: configuration, tunnelOrigin: origin, scope: scope.value),
                ])
            }
        }
        try operations.addHandler(CloseOnConnectionError())
        try operations.addHandler(floodGuard)
        try operations.addHandler(idleClose)
        try operations.addHandler(ConnectionScopeCloser(scope: scope.value))
    }

    /// Closes an HTTP/2 connection once SwiftNIO's handler has answered a connection error with
    /// GOAWAY (a malformed preface or frame, a broken header block): the peer must not go on, and
    /// the connection's streams end with it. Errors of one stream stay in that stream's channel.
    /// The close waits for the handler to finish the read that found the error: closed from within
    /// it, the connection's open streams and their handlers were never freed.
    final class CloseOnConnectionError: ChannelInboundHandler, Sendable {
        typealias InboundIn = Never

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            let channel = context.channel
            context.eventLoop.execute { channel.close(promise: nil) }
        }
    }

    /// The most streams an HTTP/2 client may have open at once (`SETTINGS_MAX_CONCURRENT_STREAMS`).
    static let maxConcurrentStreams = 100
    /// The largest header list served, HTTP/1.1's and each HTTP/2 stream's; a larger one gets 431.
    static let maxHeaderListSize = 64 * 1024
    /// The largest HTTP/2 header block decoded (`SETTINGS_MAX_HEADER_LIST_SIZE`): past
    /// ``maxHeaderListSize`` and up to this, the stream alone gets 431; past this, swift-nio-http2
    /// ends the connection (``HTTP2SettingsAckAhead`` gives a client's first requests the same room).
    static let http2HeaderBlockLimit = 256 * 1024
    /// How many bytes of a request body a client may send on one stream before the server reads
    /// them (`SETTINGS_INITIAL_WINDOW_SIZE`). HTTP/2's default, 64 KiB, holds an upload on loopback
    /// to a window's round trip at a time; 4 MiB lets it run at the socket's rate.
    static let streamWindowSize = 4 << 20
    /// The same for all the streams of a connection together.
    static let connectionWindowSize = 16 << 20

    private static func addHTTPHandlers(_ operations: ChannelPipeline.SynchronousOperations, front: any Responder,
                                        configuration: ServerConfiguration, origin: String?) throws {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderListSize = maxHeaderListSize
        limits.maxHeaderFieldSize = maxHeaderListSize
        limits.maxHeaderFieldCount = 1000
        // ExchangeHandler does the pipelining assistance itself: one handler less for every message.
        // An upgrade handler with no upgraders makes the decoder keep the bytes that follow a
        // `CONNECT` (a client may send its first tunnelled bytes in the same write) and hand them
        // on when the tunnel replaces it; it leaves the pipeline after the first request.
        // No outbound header validation: every head ExchangeHandler writes is legal when made
        // (see ExchangeHandler.writeHead), so a replayed answer's headers are checked once, when
        // it is prepared, rather than on every write by one handler more.
        try operations.configureHTTPServerPipeline(
            position: .last, withPipeliningAssistance: false, withServerUpgrade: (upgraders: [], completionHandler: { _ in }),
            withErrorHandling: false, withOutboundHeaderValidation: false, withEncoderConfiguration: .init(),
            withDecoderLimitConfiguration: limits)
        try operations.addHandler(ExchangeHandler(front: front, configuration: configuration, tunnelOrigin: origin))
    }

    /// Replaces the plain HTTP handlers after a `CONNECT` was answered: a sniffer then looks at
    /// the first bytes and serves HTTP inside the tunnel, behind TLS when the client starts TLS.
    /// SwiftNIO's idle handler, first, watches the tunnel's bytes for the idle timeout.
    static func switchToTunnel(context: ChannelHandlerContext, handler: ExchangeHandler, sslContext: NIOSSLContext,
                               host: String, port: Int, front: any Responder, configuration: ServerConfiguration) throws {
        let operations = context.pipeline.syncOperations
        let old = [handler] + (try plainHTTPHandlers(operations))
        let idle = IdleStateHandler(readTimeout: configuration.idleTimeout)
        try operations.addHandler(idle, position: .first)
        // Last, so the bytes the decoder kept after the `CONNECT` reach it when the decoder leaves.
        try operations.addHandler(TunnelSniffer(sslContext: sslContext, host: host, port: port, front: front,
                                                configuration: configuration), position: .last)
        for handler in old { operations.removeHandler(handler, promise: nil) }
    }

    /// Adds what serves the inside of a tunnel: TLS if asked for, then HTTP/2 or HTTP/1.1, as ALPN
    /// agreed (TLS) or the first bytes say (plain).
    static func addTunnelHandlers(_ operations: ChannelPipeline.SynchronousOperations, after sniffer: any ChannelHandler,
                                  tls: NIOSSLContext?, origin: String, front: any Responder,
                                  configuration: ServerConfiguration) throws {
        guard let tls else {
            return try addEitherVersion(operations, front: front, configuration: configuration, origin: origin)
        }
        try operations.addHandler(NIOSSLServerHandler(context: tls), position: .after(sniffer))
        try operations.addHandler(ApplicationProtocolNegotiationHandler { result, channel in
            channel.eventLoop.makeCompletedFuture {
                let operations = channel.pipeline.syncOperations
                if case .negotiated("h2") = result {
                    try addHTTP2Handlers(operations, front: front, configuration: configuration, origin: origin)
                } else {
                    try addHTTPHandlers(operations, front: front, configuration: configuration, origin: origin)
                }
            }
        })
    }

    /// The plain connection's HTTP handlers, the decoder last: removed after the exchange handler,
    /// it hands the bytes it kept after a `CONNECT` to whatever stands last in the pipeline then.
    /// Inside an intercepted tunnel there is no read handler (``switchToTunnel`` removed it).
    private static func plainHTTPHandlers(_ operations: ChannelPipeline.SynchronousOperations) throws -> [any RemovableChannelHandler] {
        ((try? operations.handler(type: ConnectionReadHandler.self)).map { [$0] } ?? [])
        + [try operations.handler(type: HTTPResponseEncoder.self)]
            + ((try? operations.handler(type: HTTPServerUpgradeHandler.self)).map { [$0] } ?? [])
            + [try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)]
    }

    /// Replaces the HTTP handlers by a byte relay to an upstream connection (passthrough tunnel).
    static func switchToRelay(context: ChannelHandlerContext, handler: ExchangeHandler, upstream: any Channel) throws {
        let operations = context.pipeline.syncOperations
        let old = [handler] + (try plainHTTPHandlers(operations))
        let (local, remote) = GlueHandler.matchedPair()
        // The upstream connection was made on this same event loop. Its end of the relay is in
        // place before the bytes the decoder kept after a `CONNECT` come through.
        try upstream.pipeline.syncOperations.addHandler(remote)
        try operations.addHandler(local)
        for old in old {
            operations.removeHandler(old, promise: nil)
        }
    }

    /// Replaces the HTTP handlers, once a WebSocket upgrade was answered, by WebSocket framing and
    /// `conversation`, the handler that reads and writes whole messages.
    static func switchToWebSocket(context: ChannelHandlerContext, handler: ExchangeHandler, configuration: ServerConfiguration,
                                  deflate: PerMessageDeflateCodec?, conversation: any ChannelHandler) throws {
        let operations = context.pipeline.syncOperations
        let old = [handler] + (try plainHTTPHandlers(operations))
        // Last, so the bytes the HTTP decoder kept after the handshake reach the frame decoder.
        try operations.addHandlers(webSocketHandlers(configuration: configuration, deflate: deflate, conversation: conversation))
        for old in old { operations.removeHandler(old, promise: nil) }
        // The exchange handler held the connection's read while it answered; reading starts again here.
        context.channel.read()
    }

    /// Puts WebSocket framing over the stream's DATA frames and `conversation` in front of the
    /// HTTP/1 translation of an HTTP/2 stream, once its extended CONNECT was answered. The
    /// translation stays behind, unreached: the conversation handler takes every message.
    static func switchStreamToWebSocket(context: ChannelHandlerContext, handler: ExchangeHandler, configuration: ServerConfiguration,
                                        deflate: PerMessageDeflateCodec?, conversation: any ChannelHandler) throws {
        let operations = context.pipeline.syncOperations
        let handlers = [WebSocketOverHTTP2Stream()] + webSocketHandlers(configuration: configuration, deflate: deflate, conversation: conversation)
        try operations.addHandlers(handlers, position: .after(try operations.handler(type: ExtendedConnect.self)))
        operations.removeHandler(handler, promise: nil)
        context.channel.read()
    }

    /// WebSocket framing for a client's connection, the message reader (with the connection's
    /// `permessage-deflate`, when agreed, and the server's total for unfinished messages) and
    /// `conversation`; a conversation with no message either way for the idle timeout is closed.
    private static func webSocketHandlers(configuration: ServerConfiguration, deflate: PerMessageDeflateCodec?,
                                          conversation: any ChannelHandler) -> [any ChannelHandler] {
        [ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: configuration.maxMessageSize)),
         WebSocketFrameEncoder(),
         WebSocketIdleWatch(timeout: configuration.idleTimeout),
         WebSocketMessageReader(peerIsClient: true, maxMessageSize: configuration.maxMessageSize, deflate: deflate,
                                budget: configuration.webSocketBuffers),
         conversation]
    }
}
