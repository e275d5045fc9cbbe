import NIOCore

/// Looks after the reads of a plain HTTP connection, next to the socket: keeps the socket
/// registered for reading while the answer to a request is on its way, and tells the handlers
/// behind when nothing was read for the idle timeout.
///
/// `ExchangeHandler` holds `read()` from the end of a request until its response ends. When the
/// response comes later (from an upstream, or after a replay delay), every exchange would then
/// take the socket out of epoll and put it back: two system calls per request on the recording
/// proxy's hot path. So after each read completes this handler asks the handlers behind for a
/// read; when they hold it, it reads ahead itself, once. If bytes arrive during that read-ahead
/// while the read is still held (a client pipelining requests), it stops until the handlers
/// behind ask again, so a client can never make the server hold more than one read's worth of
/// requests it has not asked for.
///
/// The idle check is a timer armed once per timeout, not per read: it fires SwiftNIO's
/// `IdleStateHandler.IdleStateEvent.read` when the last read is a whole timeout old, and re-arms
/// for when it would be otherwise. Time is the event loop's, so `EmbeddedEventLoop.advanceTime`
/// drives it in tests. (A tunnel gets SwiftNIO's `IdleStateHandler` instead, see
/// ``ServerPipeline``.)
final class ConnectionReadHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = Never

    private let idleTimeout: TimeAmount
    /// Whether the read in progress was issued here rather than asked for by the handlers behind.
    private var readingAhead = false
    /// Whether the handlers behind asked for a read since the last read completed.
    private var asked = false
    /// When the last read completed, or the connection started.
    private var lastRead = NIODeadline.uptimeNanoseconds(0)
    private var idleCheck: Scheduled<Void>?

    init(idleTimeout: TimeAmount) {
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startIdleCheck(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if idleCheck == nil { startIdleCheck(context: context) }
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopIdleCheck()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopIdleCheck()
        context.fireChannelInactive()
    }

    func read(context: ChannelHandlerContext) {
        asked = true
        readingAhead = false
        context.read()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        lastRead = context.eventLoop.now
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

    private func startIdleCheck(context: ChannelHandlerContext) {
        lastRead = context.eventLoop.now
        armIdleCheck(context: context, at: lastRead + idleTimeout)
    }

    private func stopIdleCheck() {
        idleCheck?.cancel()
        idleCheck = nil
    }

    private func armIdleCheck(context: ChannelHandlerContext, at deadline: NIODeadline) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = bound.value
            handler.idleCheck = nil
            guard context.channel.isActive else { return }
            let quietUntil = handler.lastRead + handler.idleTimeout
            let now = context.eventLoop.now
            if quietUntil <= now {
                handler.armIdleCheck(context: context, at: now + handler.idleTimeout)
                context.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
            } else {
                handler.armIdleCheck(context: context, at: quietUntil)
            }
        }
    }
}
