import NIOCore
import NIOHTTP1
import NIOSSL
import NIOWebSocket
import TapedeckCore

/// How a service answered a WebSocket upgrade.
package enum WebSocketUpgradeAnswer {
    /// It switched to WebSocket: its 101, and the connection, now speaking whole messages
    /// through ``WebSocketMessageReader`` and the handlers the caller added behind it.
    case upgraded(HTTPResponseHead, any Channel)
    /// It answered otherwise: the answer.
    case refused(HTTPResponseHead, ByteBuffer)
}

/// Opens a WebSocket as its client, for the recording proxy's upstream leg and the connector's
/// `NIOWebSocketConnector` alike: connects (TLS when given), sends `head` as an HTTP/1.1 upgrade
/// with `key`, the version and an offer of `permessage-deflate` (so messages arrive whole and
/// decompressed whatever the service agrees), and completes with how the service answered.
package enum WebSocketClientUpgrade {
    /// - Parameters:
    ///   - head: the request head to send: its method, target and headers (the upgrade's own
    ///     headers are added here).
    ///   - addHandlers: adds the conversation's handlers behind the reader, on the event loop,
    ///     before anything the service sent after its 101 is read.
    package static func open(host: String, port: Int, tls: NIOSSLContext?, head: HTTPRequestHead, key: String, maxMessageSize: Int,
                             on eventLoop: any EventLoop,
                             addHandlers: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void = { _ in })
        -> EventLoopFuture<WebSocketUpgradeAnswer> {
        let answer = eventLoop.makePromise(of: WebSocketUpgradeAnswer.self)
        let upgrader = NIOWebSocketClientUpgrader(requestKey: key, maxFrameSize: maxMessageSize, automaticErrorHandling: false) {
            channel, response in
            channel.eventLoop.makeCompletedFuture {
                let deflate: PerMessageDeflate?
                do {
                    deflate = try PerMessageDeflate.agreed(response: response.headers[canonicalForm: "Sec-WebSocket-Extensions"].map(String.init))
                } catch {
                    answer.fail(error)
                    channel.close(promise: nil)
                    throw error
                }
                let operations = channel.pipeline.syncOperations
                operations.removeHandler(try operations.handler(type: RefusedUpgrade.self), promise: nil)
                try operations.addHandler(WebSocketMessageReader(peerIsClient: false, maxMessageSize: maxMessageSize,
                                                                 deflate: deflate.map { PerMessageDeflateCodec($0, role: .client) }))
                try addHandlers(operations)
                answer.succeed(.upgraded(response, channel))
            }
        }
        let connected = UpstreamSocket.connect(host: host, port: port, tls: tls, on: eventLoop) { operations in
            try operations.addHTTPClientHandlers(leftOverBytesStrategy: .forwardBytes,
                                                 withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            try operations.addHandler(RefusedUpgrade(answer: answer))
        }
        connected.whenSuccess { channel in
            var head = head
            head.version = .http1_1
            head.headers.add(name: "Sec-WebSocket-Extensions", value: PerMessageDeflate.clientOffer)
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            channel.closeFuture.whenComplete { _ in answer.fail(ChannelError.eof) }
        }
        connected.whenFailure(answer.fail)
        return answer.futureResult
    }

    /// Collects an answer that is not a 101 (the upgrade handler passes it on and leaves).
    private final class RefusedUpgrade: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart

        private let answer: EventLoopPromise<WebSocketUpgradeAnswer>
        private var head: HTTPResponseHead?
        private var body = ByteBuffer()

        init(answer: EventLoopPromise<WebSocketUpgradeAnswer>) {
            self.answer = answer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body(var part):
                body.writeBuffer(&part)
            case .end:
                if let head { answer.succeed(.refused(head, body)) }
                context.close(promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            answer.fail(error)
            context.close(promise: nil)
        }
    }
}
