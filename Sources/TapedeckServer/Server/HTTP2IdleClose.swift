import NIOCore
import NIOHTTP2

/// Closes an HTTP/2 connection that has had no stream open and read nothing for the idle timeout,
/// with `GOAWAY` (`NO_ERROR`) first, as the HTTP/1.1 connection handling does with an idle
/// keep-alive connection. A connection with a stream open stays, however quiet: a streamed
/// answer may pause. SwiftNIO's `IdleStateHandler` in front of the connection says when reads
/// stopped; SwiftNIO's HTTP/2 handler tells ``streams`` of streams opening and closing.
final class HTTP2IdleClose: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The HTTP/2 handler's stream delegate.
    let streams: OpenStreams

    init(eventLoop: any EventLoop) {
        streams = OpenStreams(eventLoop: eventLoop)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case IdleStateHandler.IdleStateEvent.read = event, streams.count.value.open == 0 else {
            return context.fireUserInboundEventTriggered(event)
        }
        let goaway = HTTP2Frame(streamID: .rootStream,
                                payload: .goAway(lastStreamID: streams.count.value.last, errorCode: .noError, opaqueData: nil))
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(goaway)).whenComplete { _ in channel.close(promise: nil) }
    }

    /// How many streams are open, and the last one opened; counted on the connection's event loop.
    struct OpenStreams: NIOHTTP2StreamDelegate {
        let count: NIOLoopBoundBox<(open: Int, last: HTTP2StreamID)>

        init(eventLoop: any EventLoop) {
            count = NIOLoopBoundBox((0, .rootStream), eventLoop: eventLoop)
        }

        func streamCreated(_ id: HTTP2StreamID, channel: any Channel) {
            count.value = (count.value.open + 1, max(count.value.last, id))
        }

        func streamClosed(_ id: HTTP2StreamID, channel: any Channel) {
            count.value.open -= 1
        }
    }
}
