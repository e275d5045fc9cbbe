import NIOCore
import NIOHTTP1

/// Answers a request that does not parse: 431 when its headers are too large, 400 otherwise;
/// the decoder then closes the connection. The server itself stays up.
final class ProtocolErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var responseInProgress = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if !responseInProgress {
            let tooLarge = parserError == .headerOverflow
            let status: HTTPResponseStatus = tooLarge ? .requestHeaderFieldsTooLarge : .badRequest
            let reason = tooLarge ? "the request headers are over the size limit\n" : "malformed request: \(parserError)\n"
            var body = context.channel.allocator.buffer(capacity: reason.utf8.count)
            body.writeString(reason)
            let headers = HTTPHeaders([("Connection", "close"), ("Content-Length", String(body.readableBytes)),
                                       ("Content-Type", "text/plain; charset=utf-8"), ("Tapedeck-Error", "bad-request")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.close(promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200: responseInProgress = true
        case .end: responseInProgress = false
        default: break
        }
        context.write(data, promise: promise)
    }
}
