import NIOCore
import NIOPosix

/// An upstream that accepts any upgrade request with 101 and then echoes every byte:
/// enough to check that WebSocket upgrades are tunnelled untouched.
final class EchoUpgradeUpstream: Sendable {
    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Starts listening on 127.0.0.1.
    static func start() async throws -> EchoUpgradeUpstream {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoHandler()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return EchoUpgradeUpstream(port: channel.localAddress!.port!, channel: channel)
    }

    /// Stops listening.
    func stop() async throws { try await channel.close() }

    private final class EchoHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        private var head = ""
        private var upgraded = false

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            if upgraded {
                context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
                return
            }
            head += buffer.readString(length: buffer.readableBytes) ?? ""
            guard let end = head.range(of: "\r\n\r\n") else { return }
            upgraded = true
            let sawHost = head.lowercased().contains("\r\nhost: 127.0.0.1:")
            let answer = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Saw-Host: \(sawHost)\r\n\r\n"
            context.write(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
            let rest = String(head[end.upperBound...])
            if !rest.isEmpty { context.write(wrapOutboundOut(ByteBuffer(string: rest)), promise: nil) }
            context.flush()
        }
    }
}
