import NIOCore
import NIOHTTP1
import NIOSSL

/// Builds the handlers of a connection, and rebuilds them inside an intercepted TLS tunnel.
enum ServerPipeline {
    /// Adds the HTTP handlers for a new connection.
    static func configure(channel: any Channel, responder: any Responder, configuration: ServerConfiguration) throws {
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(ConnectionReadHandler(idleTimeout: configuration.idleTimeout))
        try addHTTPHandlers(operations, responder: responder, configuration: configuration, origin: nil)
    }

    private static func addHTTPHandlers(_ operations: ChannelPipeline.SynchronousOperations, responder: any Responder,
                                        configuration: ServerConfiguration, origin: String?) throws {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderListSize = 64 * 1024
        limits.maxHeaderFieldSize = 64 * 1024
        limits.maxHeaderFieldCount = 1000
        // ExchangeHandler does the pipelining assistance itself: one handler less for every message.
        // An upgrade handler with no upgraders makes the decoder keep the bytes that follow a
        // `CONNECT` (a client may send its first tunnelled bytes in the same write) and hand them
        // on when the tunnel replaces it; it leaves the pipeline after the first request.
        // Outbound header validation refuses a header value with CR, LF or NUL, so no answer can be split.
        try operations.configureHTTPServerPipeline(
            position: .last, withPipeliningAssistance: false, withServerUpgrade: (upgraders: [], completionHandler: { _ in }),
            withErrorHandling: false, withOutboundHeaderValidation: true, withEncoderConfiguration: .init(),
            withDecoderLimitConfiguration: limits)
        try operations.addHandler(ExchangeHandler(responder: responder, configuration: configuration, tunnelOrigin: origin))
    }

    /// Replaces the plain HTTP handlers after a `CONNECT` was answered: a sniffer then looks at
    /// the first bytes and serves HTTP inside the tunnel, behind TLS when the client starts TLS.
    /// SwiftNIO's idle handler, first, watches the tunnel's bytes for the idle timeout.
    static func switchToTunnel(context: ChannelHandlerContext, handler: ExchangeHandler, sslContext: NIOSSLContext,
                               host: String, port: Int, responder: any Responder, configuration: ServerConfiguration) throws {
        let operations = context.pipeline.syncOperations
        let old = [handler] + (try plainHTTPHandlers(operations))
        let idle = IdleStateHandler(readTimeout: configuration.idleTimeout)
        try operations.addHandler(idle, position: .first)
        // Last, so the bytes the decoder kept after the `CONNECT` reach it when the decoder leaves.
        try operations.addHandler(TunnelSniffer(sslContext: sslContext, host: host, port: port, responder: responder,
                                                configuration: configuration), position: .last)
        for handler in old { operations.removeHandler(handler, promise: nil) }
    }

    /// Adds what serves the inside of a tunnel: TLS if asked for, then HTTP.
    static func addTunnelHandlers(_ operations: ChannelPipeline.SynchronousOperations, after sniffer: any ChannelHandler,
                                  tls: NIOSSLContext?, origin: String, responder: any Responder,
                                  configuration: ServerConfiguration) throws {
        if let tls { try operations.addHandler(NIOSSLServerHandler(context: tls), position: .after(sniffer)) }
        try addHTTPHandlers(operations, responder: responder, configuration: configuration, origin: origin)
    }

    /// The plain connection's HTTP handlers, the decoder last: removed after the exchange handler,
    /// it hands the bytes it kept after a `CONNECT` to whatever stands last in the pipeline then.
    private static func plainHTTPHandlers(_ operations: ChannelPipeline.SynchronousOperations) throws -> [any RemovableChannelHandler] {
        [try operations.handler(type: ConnectionReadHandler.self),
         try operations.handler(type: HTTPResponseEncoder.self),
         try operations.handler(type: NIOHTTPResponseHeadersValidator.self)]
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
}
