import NIOCore
import NIOHTTP1
import NIOSSL
import NIOWebSocket
import TapedeckCore

/// A WebSocket upgrade going to the live service to be recorded: where, the handshake as the
/// upstream gets it, and what happens to the conversation.
package struct WebSocketRecording: Sendable {
    var host: String
    var port: Int
    var tls: NIOSSLContext?
    /// The client's request head as the upstream gets it (secrets revealed, `Host` the target's).
    var head: HTTPRequestHead
    /// The request as the cassette keeps it.
    var cassetteRequest: CassetteRequest
    /// Called exactly once: with the finished conversation to record, or nil when there is none
    /// (the upstream refused the upgrade or could not be reached).
    var finished: @Sendable (FinishedExchange?) -> Void
}

/// How the upstream answered an upgrade.
enum UpstreamUpgrade {
    /// It switched to WebSocket: its 101, and the connection, now speaking whole messages
    /// through ``WebSocketMessageReader`` (the relay goes last).
    case upgraded(HTTPResponseHead, any Channel)
    /// It answered otherwise: the answer, to pass back to the client.
    case refused(HTTPResponseHead, ByteBuffer)
}

/// Opens the upstream side of a recorded WebSocket conversation: connects, sends the client's
/// handshake with the proxy's own key, version and extension offer (`permessage-deflate`,
/// agreed with the upstream apart from the client's, so messages are recorded decompressed),
/// and completes with how the upstream answered.
enum UpstreamWebSocket {
    static func open(_ recording: WebSocketRecording, clientKey: String, maxMessageSize: Int,
                     on eventLoop: any EventLoop) -> EventLoopFuture<UpstreamUpgrade> {
        let answer = eventLoop.makePromise(of: UpstreamUpgrade.self)
        let upgrader = NIOWebSocketClientUpgrader(requestKey: clientKey, maxFrameSize: maxMessageSize, automaticErrorHandling: false) {
            channel, head in
            channel.eventLoop.makeCompletedFuture {
                let deflate: PerMessageDeflate?
                do {
                    deflate = try PerMessageDeflate.agreed(response: head.headers[canonicalForm: "Sec-WebSocket-Extensions"].map(String.init))
                } catch {
                    answer.fail(error)
                    channel.close(promise: nil)
                    throw error
                }
                let operations = channel.pipeline.syncOperations
                operations.removeHandler(try operations.handler(type: RefusedUpgrade.self), promise: nil)
                try operations.addHandler(WebSocketMessageReader(peerIsClient: false, maxMessageSize: maxMessageSize,
                                                                 deflate: deflate.map { PerMessageDeflateCodec($0, role: .client) }))
                answer.succeed(.upgraded(head, channel))
            }
        }
        let connected = UpstreamSocket.connect(host: recording.host, port: recording.port, tls: recording.tls, on: eventLoop) { operations in
            try operations.addHTTPClientHandlers(leftOverBytesStrategy: .forwardBytes,
                                                 withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            try operations.addHandler(RefusedUpgrade(answer: answer))
        }
        connected.whenSuccess { channel in
            var head = recording.head
            head.version = .http1_1  // the upstream is asked by HTTP/1.1's upgrade, whatever the client spoke
            head.headers = HTTPHeaders(head.headers.filter { !WebSocketHandshake.negotiatedHeaders.contains($0.name.lowercased()) })
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

        private let answer: EventLoopPromise<UpstreamUpgrade>
        private var head: HTTPResponseHead?
        private var body = ByteBuffer()

        init(answer: EventLoopPromise<UpstreamUpgrade>) {
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
