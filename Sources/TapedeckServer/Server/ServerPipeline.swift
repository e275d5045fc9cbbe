import NIOCore
import NIOHTTP1
import NIOSSL

/// Builds the handlers of a connection, and rebuilds them inside an intercepted TLS tunnel.
enum ServerPipeline {
    /// The idle timeout handler's name, kept first so it also watches tunnels.
    static let idleHandlerName = "tapedeck-idle"

    /// Adds the HTTP handlers for a new connection.
    static func configure(channel: any Channel, responder: any Responder, configuration: ServerConfiguration) throws {
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(IdleStateHandler(readTimeout: configuration.idleTimeout), name: idleHandlerName)
        try operations.addHandler(ReadAheadHandler())
        try addHTTPHandlers(operations, responder: responder, configuration: configuration, origin: nil)
    }

    private static func addHTTPHandlers(_ operations: ChannelPipeline.SynchronousOperations, responder: any Responder,
                                        configuration: ServerConfiguration, origin: String?) throws {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderListSize = 64 * 1024
        limits.maxHeaderFieldSize = 64 * 1024
        limits.maxHeaderFieldCount = 1000
        try operations.configureHTTPServerPipeline(
            position: .last, withPipeliningAssistance: true, withServerUpgrade: nil, withErrorHandling: false,
            withOutboundHeaderValidation: false, withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
        if origin == nil, let credentials = configuration.proxyCredentials {
            try operations.addHandler(ProxyAuthenticationHandler(credentials: credentials))
        }
        try operations.addHandler(ExchangeHandler(responder: responder, configuration: configuration, tunnelOrigin: origin))
    }

    /// Replaces the plain HTTP handlers after a `CONNECT` was answered: a sniffer then looks at
    /// the first bytes and serves HTTP inside the tunnel, behind TLS when the client starts TLS.
    static func switchToTunnel(context: ChannelHandlerContext, handler: ExchangeHandler, sslContext: NIOSSLContext,
                               host: String, port: Int, responder: any Responder, configuration: ServerConfiguration) throws {
        let operations = context.pipeline.syncOperations
        let idle = try operations.context(name: idleHandlerName)
        let old = try plainHTTPHandlers(operations) + [handler]
        try operations.addHandler(TunnelSniffer(sslContext: sslContext, host: host, port: port, responder: responder,
                                                configuration: configuration), position: .after(idle.handler))
        for handler in old { operations.removeHandler(handler, promise: nil) }
    }

    /// Adds what serves the inside of a tunnel: TLS if asked for, then HTTP.
    static func addTunnelHandlers(_ operations: ChannelPipeline.SynchronousOperations, after sniffer: any ChannelHandler,
                                  tls: NIOSSLContext?, origin: String, responder: any Responder,
                                  configuration: ServerConfiguration) throws {
        if let tls { try operations.addHandler(NIOSSLServerHandler(context: tls), position: .after(sniffer)) }
        try addHTTPHandlers(operations, responder: responder, configuration: configuration, origin: origin)
    }

    private static func plainHTTPHandlers(_ operations: ChannelPipeline.SynchronousOperations) throws -> [any RemovableChannelHandler] {
        [try operations.handler(type: ReadAheadHandler.self),
         try operations.handler(type: HTTPResponseEncoder.self),
         try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self),
         try operations.handler(type: HTTPServerPipelineHandler.self)]
            + ((try? operations.handler(type: ProxyAuthenticationHandler.self)).map { [$0] } ?? [])
    }

    /// Replaces the HTTP handlers by a byte relay to an upstream connection (passthrough tunnel).
    static func switchToRelay(context: ChannelHandlerContext, handler: ExchangeHandler, upstream: any Channel) throws {
        let operations = context.pipeline.syncOperations
        let old = try plainHTTPHandlers(operations) + [handler]
        let (local, remote) = GlueHandler.matchedPair()
        try operations.addHandler(local)
        for old in old {
            operations.removeHandler(old, promise: nil)
        }
        // The upstream connection was made on this same event loop.
        try upstream.pipeline.syncOperations.addHandler(remote)
    }
}
