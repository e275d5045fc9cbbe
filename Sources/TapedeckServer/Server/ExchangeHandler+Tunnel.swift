import NIOCore
import NIOHTTP1
import NIOSSL
import TapedeckCore
import TapedeckNIO

/// `CONNECT` tunnels, relays and WebSocket upgrades: what happens to a connection once it stops
/// being plain HTTP request/response.
extension ExchangeHandler {
    /// Carries out the responder's plan for a `CONNECT host:port`.
    func openTunnel(context: ChannelHandlerContext, host: String, port: Int) {
        switch front.connectPlan(host: host, port: port) {
        case .refuse(let refusal):
            refuse(refusal, context: context)
        case .relay:
            tunnelOpened()
            relay(context: context, host: host, port: port, tls: nil) { handler, context, _ in
                handler.writeTunnelEstablished(context: context)
            }
        case .intercept(let sslContext):
            tunnelOpened()
            let written = writeTunnelEstablished(context: context)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let configuration = configuration
            let front = front
            written.whenSuccess {
                let (handler, context) = bound.value
                do {
                    try ServerPipeline.switchToTunnel(context: context, handler: handler, sslContext: sslContext,
                                                      host: host, port: port, front: front, configuration: configuration)
                } catch {
                    context.close(promise: nil)
                }
            }
        }
    }

    /// Connects to an upstream, sends the bytes given, and relays the connection to it (WebSocket upgrades).
    func openUpstreamTunnel(context: ChannelHandlerContext, host: String, port: Int, tls: NIOSSLContext?, initialBytes: ByteBuffer) {
        relay(context: context, host: host, port: port, tls: tls) { _, _, upstream in
            upstream.writeAndFlush(initialBytes)
        }
    }

    /// Connects to `host:port` and, once `prepare` (run with the new upstream connection) is done,
    /// relays this connection to it byte for byte; answers 502 when connecting fails.
    private func relay(context: ChannelHandlerContext, host: String, port: Int, tls: NIOSSLContext?,
                       prepare: @escaping (ExchangeHandler, ChannelHandlerContext, any Channel) -> EventLoopFuture<Void>) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        UpstreamSocket.connect(host: host, port: port, tls: tls, on: context.eventLoop).assumeIsolated().whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .failure(let error):
                handler.refuse(Refusal(.badGateway, code: "upstream-unreachable",
                                       "cannot reach \(host):\(port): \(UpstreamFailureText.describe(error))"), context: context)
            case .success(let upstream):
                prepare(handler, context, upstream).assumeIsolated().whenSuccess {
                    do {
                        try ServerPipeline.switchToRelay(context: context, handler: handler, upstream: upstream)
                    } catch {
                        upstream.close(promise: nil)
                        context.close(promise: nil)
                    }
                }
            }
        }
    }

    /// Accepts a WebSocket upgrade with its 101 and hands the connection to `conversation`, behind
    /// WebSocket framing; an HTTP/2 stream that asked by extended CONNECT (RFC 8441) gets a 200
    /// and carries the framing in its DATA frames. Any other HTTP/2 stream is refused with 501.
    func acceptWebSocket(_ acceptance: WebSocketHandshake.Acceptance, context: ChannelHandlerContext,
                         conversation: @autoclosure () -> any ChannelHandler) {
        let deflate = acceptance.deflate.map { PerMessageDeflateCodec($0, role: .server) }
        do {
            if context.pipeline.isHTTP2Stream {
                guard (try? context.pipeline.syncOperations.handler(type: ExtendedConnect.self))?.isWebSocket == true else {
                    return refuse(Refusal(.notImplemented, code: "websocket-over-http2",
                                          "on HTTP/2 a WebSocket is asked for by extended CONNECT (RFC 8441), not by Upgrade"), context: context)
                }
                tunnelOpened()
                context.writeAndFlush(wrapOutboundOut(.head(ExtendedConnect.answer(standingFor: acceptance.head))), promise: nil)
                try ServerPipeline.switchStreamToWebSocket(context: context, handler: self, configuration: configuration,
                                                           deflate: deflate, conversation: conversation())
            } else {
                tunnelOpened()
                context.write(wrapOutboundOut(.head(acceptance.head)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                try ServerPipeline.switchToWebSocket(context: context, handler: self, configuration: configuration,
                                                     deflate: deflate, conversation: conversation())
            }
        } catch {
            context.close(promise: nil)
        }
    }

    /// Answers a CONNECT with 200; completes when the answer is on the wire.
    private func writeTunnelEstablished(context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: HTTPHeaders([("Content-Length", "0")]))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        return context.writeAndFlush(wrapOutboundOut(.end(nil)))
    }
}
