@_spi(Internals) import TapedeckCore
import Foundation
import NIOCore
import NIOPosix

/// A real upstream on 127.0.0.1 that the tests start themselves, speaking raw HTTP/1.1 so it
/// can misbehave: `/reset` resets the connection mid-body, `/truncated` promises more body
/// than it sends, anything else answers 200 with `echo PATH` (keep-alive).
final class LocalUpstream: Sendable {
    /// The port it listens on.
    let port: Int
    private let channel: any Channel

    /// The base URL.
    var base: String { "http://127.0.0.1:\(port)" }

    /// Starts listening on a free port.
    static func start() async throws -> LocalUpstream {
        let counter = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawUpstreamHandler(counter: counter))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return LocalUpstream(port: channel.localAddress!.port!, channel: channel, counter: counter)
    }

    private let counter: Counter

    private init(port: Int, channel: any Channel, counter: Counter) {
        self.port = port
        self.channel = channel
        self.counter = counter
    }

    /// How many requests arrived so far.
    var received: Int { counter.value.withLock { $0 } }

    /// Stops listening.
    func stop() async {
        try? await channel.close()
    }
}

/// A thread-safe request counter.
final class Counter: Sendable {
    let value = Locked(0)
}

/// Reads request heads (no bodies) and writes hand-made answers.
private final class RawUpstreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var pending = ByteBuffer()
    private let counter: Counter

    init(counter: Counter) { self.counter = counter }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var chunk = unwrapInboundIn(data)
        pending.writeBuffer(&chunk)
        while let view = pending.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) {
            let length = view.upperBound - pending.readerIndex
            let head = pending.readString(length: length) ?? ""
            pending.discardReadBytes()
            counter.value.withLock { $0 += 1 }
            let path = head.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? "/"
            answer(path: path, context: context)
        }
    }

    private func answer(path: String, context: ChannelHandlerContext) {
        if path.hasPrefix("/hang") {
            return  // never answers: for timeouts and clients that give up
        }
        if path.hasPrefix("/reset") {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n"
            var buffer = context.channel.allocator.buffer(string: head)
            buffer.writeBytes([UInt8](repeating: 0x61, count: 1000))
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
                // SO_LINGER 0 makes the close a reset (RST), as a crashed upstream would.
                guard let provider = channel as? any SocketOptionProvider else { channel.close(promise: nil); return }
                provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
            }
            return
        }
        if path.hasPrefix("/truncated") {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\nConnection: close\r\n\r\nonly ten b"
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: head))).whenComplete { _ in
                channel.close(promise: nil)
            }
            return
        }
        let body = "echo \(path)"
        let text = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
