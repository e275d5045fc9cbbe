// The benchmark baseline: a bare SwiftNIO HTTP/1.1 server answering one fixed JSON response,
// with the same pipeline assistance as Tapedeck's server and nothing else.
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers every request with the same small JSON body.
final class FixedResponseHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let body = ByteBuffer(string: #"{"id":42,"name":"tapedeck","tags":["replay","benchmark"],"active":true}"#)
    private static let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: HTTPHeaders([
        ("Content-Type", "application/json"), ("Content-Length", String(body.readableBytes)),
    ]))
    private var keepAlive = true

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
        case .body:
            break
        case .end:
            context.write(wrapOutboundOut(.head(Self.head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(Self.body))), promise: nil)
            if keepAlive {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
                    channel.close(promise: nil)
                }
            }
        }
    }
}

var host = "127.0.0.1"
var port = 8081
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--host": host = arguments.next() ?? host
    case "--port": port = arguments.next().flatMap(Int.init) ?? port
    default:
        print("usage: bare-server [--host 127.0.0.1] [--port 8081]")
        exit(2)
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(FixedResponseHandler())
        }
    }
    .bind(host: host, port: port)
    .wait()
let line = "bare server listening on http://\(host):\(channel.localAddress?.port ?? port)\n"
_ = line.utf8CString.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count - 1) }
try channel.closeFuture.wait()
