import NIOCore

/// Keeps a connection's socket registered for reading while the answer to its request is on
/// its way, reading ahead by at most one read.
///
/// SwiftNIO's HTTP pipelining handler holds `read()` from the end of a request until its
/// response ends. When the response comes later (from an upstream, or after a replay delay),
/// every exchange then takes the socket out of epoll and puts it back: two system calls per
/// request on the recording proxy's hot path. Sitting next to the socket, this handler asks the
/// handlers behind it for a read after each read completes; when they hold it, it reads ahead
/// itself, once. If bytes arrive during that read-ahead while the read is still held (a client
/// pipelining requests), it stops until the handlers behind ask again, so a client can never
/// make the server hold more than one read's worth of requests it has not asked for.
final class ReadAheadHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = Never

    /// Whether the read in progress was issued here rather than asked for by the handlers behind.
    private var readingAhead = false
    /// Whether the handlers behind asked for a read since the last read completed.
    private var asked = false

    func read(context: ChannelHandlerContext) {
        asked = true
        readingAhead = false
        context.read()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        let readAhead = readingAhead
        readingAhead = false
        asked = false
        context.fireChannelReadComplete()
        guard context.channel.isActive else { return }
        context.pipeline.syncOperations.read()
        if !asked && !readAhead {
            readingAhead = true
            context.read()
        }
    }
}
