import NIOCore

/// Stops a listening socket's accepting for a moment after `accept` failed (out of file
/// descriptors, or of kernel memory), so that its event loop serves the connections it has
/// instead of retrying `accept` in a loop while connections wait in the backlog.
///
/// SwiftNIO's `AcceptBackoffHandler` holds the next `read()`, but the read that failed stays
/// pending and the socket stays in epoll, which reports it readable at once: the loop spins all
/// the same. Turning `autoRead` off takes it out of epoll; turning it on again after the pause
/// puts it back.
final class AcceptPause: ChannelInboundHandler, Sendable {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    /// How long accepting stops.
    let pause: TimeAmount

    init(pause: TimeAmount) {
        self.pause = pause
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is IOError else { return context.fireErrorCaught(error) }
        let channel = context.channel
        channel.setOption(.autoRead, value: false).whenSuccess {
            channel.eventLoop.scheduleTask(in: self.pause) {
                if channel.isActive { channel.setOption(.autoRead, value: true).whenFailure { _ in } }
            }
        }
    }
}
