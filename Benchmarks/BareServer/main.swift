// The benchmark baseline: a bare SwiftNIO server answering one fixed JSON response, with the same
// pipeline assistance as Tapedeck's server and nothing else. Over HTTP/1.1 by default; with
// `--http2`, over HTTP/2 with prior knowledge (h2c), each stream translated to HTTP/1 parts by
// SwiftNIO's codec as Tapedeck's streams are, with Tapedeck's receive windows: the floor of what
// an HTTP/2 request costs over swift-nio-http2, against which Tapedeck's HTTP/2 replay is read
// (scripts/bench-h2.sh), and of what an upload costs (scripts/bench-upload.sh: it reads a request
// body and drops it). With
// `--http2-frames`, over HTTP/2 with no stream channels at all: one handler on the connection
// answers each stream's HEADERS frame by its stream ID, as nginx serves streams. What a server
// built that way could save against the stream channels every SwiftNIO HTTP/2 server uses.
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOHPACK
import NIOHTTP2
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

/// Answers every HTTP/2 request on the connection itself, by stream ID: no stream channels.
/// A baseline for GETs: it sends no WINDOW_UPDATE (stream channels do that), so an upload past
/// the 64 KiB initial window would stall.
final class FixedFrameResponder: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private static let body = ByteBuffer(string: #"{"id":42,"name":"tapedeck","tags":["replay","benchmark"],"active":true}"#)
    private static let head = HPACKHeaders([
        (":status", "200"), ("content-type", "application/json"), ("content-length", String(body.readableBytes)),
    ])

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers) where headers.endStream: answer(frame.streamID, context: context)
        case .data(let data) where data.endStream: answer(frame.streamID, context: context)
        default: break
        }
    }

    private func answer(_ stream: HTTP2StreamID, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .headers(.init(headers: Self.head)))), promise: nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .data(.init(data: .byteBuffer(Self.body), endStream: true)))), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

var host = "127.0.0.1"
var port = 8081
/// What the server speaks: HTTP/1.1, HTTP/2 through stream channels, or HTTP/2 on the connection.
enum Serving { case http1, http2, http2Frames }
var serving = Serving.http1
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--host": host = arguments.next() ?? host
    case "--port": port = arguments.next().flatMap(Int.init) ?? port
    case "--http2": serving = .http2
    case "--http2-frames": serving = .http2Frames
    default:
        print("usage: bare-server [--host 127.0.0.1] [--port 8081] [--http2 | --http2-frames]")
        exit(2)
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { [serving] channel in
        channel.eventLoop.makeCompletedFuture {
            let operations = channel.pipeline.syncOperations
            switch serving {
            case .http1:
                try operations.configureHTTPServerPipeline(withErrorHandling: true)
                try operations.addHandler(FixedResponseHandler())
            case .http2:
                // Tapedeck's receive windows, so an upload is compared at the same flow control.
                var connection = NIOHTTP2Handler.ConnectionConfiguration()
                connection.initialSettings = nioDefaultSettings + [HTTP2Setting(parameter: .initialWindowSize, value: 4 << 20)]
                connection.targetWindowSize = 16 << 20
                var streams = NIOHTTP2Handler.StreamConfiguration()
                streams.targetWindowSize = 4 << 20
                _ = try operations.configureHTTP2Pipeline(mode: .server, connectionConfiguration: connection,
                                                          streamConfiguration: streams) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandlers([HTTP2FramePayloadToHTTP1ServerCodec(), FixedResponseHandler()])
                    }
                }
            case .http2Frames:
                try operations.addHandlers([NIOHTTP2Handler(mode: .server), FixedFrameResponder()])
            }
        }
    }
    .bind(host: host, port: port)
    .wait()
let line = "bare server listening on \(serving == .http1 ? "http" : "h2c")://\(host):\(channel.localAddress?.port ?? port)\n"
_ = line.utf8CString.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count - 1) }
try channel.closeFuture.wait()
