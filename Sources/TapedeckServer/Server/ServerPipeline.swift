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
        try operations.addHandler(ProtocolErrorHandler())
        try operations.addHandler(ExchangeHandler(responder: responder, configuration: configuration, tunnelOrigin: origin))
    }

    /// Replaces the plain HTTP handlers by TLS plus fresh HTTP handlers, after a `CONNECT` was answered.
    static func switchToTLS(context: ChannelHandlerContext, handler: ExchangeHandler, sslContext: NIOSSLContext,
                            responder: any Responder, configuration: ServerConfiguration, origin: String) throws {
        let operations = context.pipeline.syncOperations
        let idle = try operations.context(name: idleHandlerName)
        let encoder = try operations.handler(type: HTTPResponseEncoder.self)
        let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        let pipelining = try operations.handler(type: HTTPServerPipelineHandler.self)
        let errors = try operations.handler(type: ProtocolErrorHandler.self)
        try operations.addHandler(NIOSSLServerHandler(context: sslContext), position: .after(idle.handler))
        try addHTTPHandlers(operations, responder: responder, configuration: configuration, origin: origin)
        for old in [encoder, decoder, pipelining, errors, handler] as [any RemovableChannelHandler] {
            operations.removeHandler(old, promise: nil)
        }
    }

    /// Replaces the HTTP handlers by a byte relay to an upstream connection (passthrough tunnel).
    static func switchToRelay(context: ChannelHandlerContext, handler: ExchangeHandler, upstream: any Channel) throws {
        let operations = context.pipeline.syncOperations
        let encoder = try operations.handler(type: HTTPResponseEncoder.self)
        let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        let pipelining = try operations.handler(type: HTTPServerPipelineHandler.self)
        let errors = try operations.handler(type: ProtocolErrorHandler.self)
        let (local, remote) = GlueHandler.matchedPair()
        try operations.addHandler(local)
        for old in [encoder, decoder, pipelining, errors, handler] as [any RemovableChannelHandler] {
            operations.removeHandler(old, promise: nil)
        }
        upstream.pipeline.addHandler(remote).whenFailure { _ in
            upstream.close(promise: nil)
        }
    }
}
