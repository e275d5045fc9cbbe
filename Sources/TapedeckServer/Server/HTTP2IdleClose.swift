import NIOCore
import NIOHTTP2

/// Closes an HTTP/2 connection that has had no stream open for the idle timeout, with `GOAWAY`
/// (`NO_ERROR`) first, as the HTTP/1.1 connection handling does with an idle keep-alive
/// connection. Only streams are progress: PING, SETTINGS or `WINDOW_UPDATE` frames keep no
/// connection open. A connection with a stream open stays, however quiet: a streamed answer may
/// pause, and each stream's own deadlines (body, sending) end one whose client stalls.
/// SwiftNIO's HTTP/2 handler tells ``streams`` of streams opening and closing.
///
/// When the server stops (`ChannelShouldQuiesceEvent`), the connection says `GOAWAY` at once,
/// so the client opens no more streams, and closes when its last open stream closes: each
/// stream's answer under way is finished first (its ``ExchangeHandler`` is told too).
final class HTTP2IdleClose: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The HTTP/2 handler's stream delegate.
    let streams: OpenStreams
    private let idleTimeout: TimeAmount
    private var idleCheck: Scheduled<Void>?

    init(eventLoop: any EventLoop, idleTimeout: TimeAmount) {
        streams = OpenStreams(eventLoop: eventLoop)
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        streams.count.value.quietSince = context.eventLoop.now
        armIdleCheck(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        idleCheck = nil
    }

    /// Looks, when the connection may have been without a stream for the idle timeout, whether it was.
    private func armIdleCheck(context: ChannelHandlerContext) {
        let count = streams.count.value
        let due = (count.open == 0 ? count.quietSince : context.eventLoop.now) + idleTimeout
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        idleCheck = context.eventLoop.scheduleTask(deadline: due) {
            let (handler, context) = bound.value
            let count = handler.streams.count.value
            if count.open == 0, context.eventLoop.now >= count.quietSince + handler.idleTimeout {
                handler.goAway(context: context, thenClose: true)
            } else {
                handler.armIdleCheck(context: context)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is ChannelShouldQuiesceEvent:
            streams.count.value.quiescing = true
            goAway(context: context, thenClose: streams.count.value.open == 0)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func goAway(context: ChannelHandlerContext, thenClose: Bool) {
        let written = context.writeAndFlush(wrapOutboundOut(Self.goAway(last: streams.count.value.last)))
        guard thenClose else { return }
        let channel = context.channel
        written.whenComplete { _ in channel.close(promise: nil) }
    }

    /// `GOAWAY` with `NO_ERROR`: no stream after `last` will be served.
    static func goAway(last: HTTP2StreamID) -> HTTP2Frame {
        HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: last, errorCode: .noError, opaqueData: nil))
    }

    /// How many streams are open, the last one opened, since when none is open, and whether the
    /// server is stopping (the connection then closes with its last stream); counted on the
    /// connection's event loop.
    struct OpenStreams: NIOHTTP2StreamDelegate {
        let count: NIOLoopBoundBox<(open: Int, last: HTTP2StreamID, quietSince: NIODeadline, quiescing: Bool)>

        init(eventLoop: any EventLoop) {
            count = NIOLoopBoundBox((0, .rootStream, .now(), false), eventLoop: eventLoop)
        }

        func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {
            count.value.open += 1
            count.value.last = max(count.value.last, id)
        }

        func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
            count.value.open -= 1
            if count.value.open == 0 { count.value.quietSince = channel.eventLoop.now }
            guard count.value.quiescing, count.value.open == 0, let connection = channel.parent else { return }
            // The stream's last frames are on their way out: a second GOAWAY follows them (closing
            // now would drop them), and the connection closes once it is written.
            let goaway = HTTP2IdleClose.goAway(last: count.value.last)
            connection.eventLoop.execute {
                connection.writeAndFlush(goaway).whenComplete { _ in connection.close(promise: nil) }
            }
        }
    }
}
