import NIOCore
import NIOEmbedded
@testable import TapedeckServer
import Testing

/// The read-ahead next to the socket: one read ahead while a response is under way, never more.
@Suite struct ConnectionReadHandlerTests {
    /// Counts the reads that reach the socket.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var reads = 0

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    /// Holds reads while `holding`, as ExchangeHandler does while a response is under way.
    final class Gate: ChannelDuplexHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundIn = ByteBuffer
        var holding = false
        private(set) var held = false
        private var context: ChannelHandlerContext?

        func handlerAdded(context: ChannelHandlerContext) { self.context = context }

        func read(context: ChannelHandlerContext) {
            if holding { held = true } else { context.read() }
        }

        /// The response ended: lets a held read through.
        func release() {
            holding = false
            if held {
                held = false
                context?.read()
            }
        }
    }

    @Test func readsAheadOnceWhileTheReadIsHeldAndNoMore() throws {
        let counter = ReadCounter(), gate = Gate()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([counter, ConnectionReadHandler(idleTimeout: .seconds(60)), gate])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()

        // A read the handlers behind ask for passes straight through.
        try channel.writeInbound(ByteBuffer(string: "GET /first HTTP/1.1\r\n\r\n"))
        #expect(counter.reads == 1)
        // While they hold it (the response is under way), one read ahead keeps the socket registered.
        gate.holding = true
        try channel.writeInbound(ByteBuffer(string: "GET /second HTTP/1.1\r\n\r\n"))
        #expect(gate.held)
        #expect(counter.reads == 2)
        // Bytes arriving during that read-ahead while the read is still held: no read until asked.
        try channel.writeInbound(ByteBuffer(string: "GET /pipelined HTTP/1.1\r\n\r\n"))
        #expect(counter.reads == 2)
        // The response ends and the held read goes through.
        gate.release()
        #expect(counter.reads == 3)
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
