import NIOCore
import NIOHTTP2

/// Counts the tiny `WINDOW_UPDATE` frames a client sends, for the connection or any of its
/// streams, toward a limit, as swift-nio-http2 counts PING, SETTINGS and PRIORITY frames (its
/// `controlFrameRateLimit`), which it does not do for these: past ``limit`` in ``window``, the
/// connection gets `GOAWAY` (`ENHANCE_YOUR_CALM`) and closes. A client that reads a body gives
/// back windows of many kilobytes at a time; increments under ``tinyIncrement`` bytes give the
/// server nothing to do but count them.
///
/// The connection's own updates reach this handler; each stream's reach its channel, where a
/// ``StreamCounter`` hands them here.
final class WindowUpdateFloodGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The most tiny updates taken in ``window``: swift-nio-http2's default for control frames.
    static let limit = 200
    /// The stretch of time they are counted over.
    static let window = TimeAmount.seconds(30)
    /// Increments smaller than this count toward the limit.
    static let tinyIncrement = 1024

    /// When each of the tiny updates still inside the window arrived, oldest first.
    private var arrivals = CircularBuffer<NIODeadline>()
    private var hasRefused = false
    /// The connection's streams, for the last one its `GOAWAY` names.
    private let streams: HTTP2IdleClose.OpenStreams
    /// The connection's place in its pipeline, for the updates of its streams.
    private var context: ChannelHandlerContext?

    init(streams: HTTP2IdleClose.OpenStreams) {
        self.streams = streams
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if case .windowUpdate(let increment) = frame.payload {
            counted(increment: increment)
        }
        context.fireChannelRead(data)
    }

    /// Counts an update of the connection's window or a stream's; past the limit, ends the connection.
    fileprivate func counted(increment: Int) {
        guard increment < Self.tinyIncrement, let context else { return }
        let now = context.eventLoop.now
        while let oldest = arrivals.first, oldest + Self.window <= now { arrivals.removeFirst() }
        arrivals.append(now)
        guard arrivals.count > Self.limit, !hasRefused else { return }
        hasRefused = true
        let goAway = HTTP2Frame(streamID: .rootStream,
                                payload: .goAway(lastStreamID: streams.count.value.last, errorCode: .enhanceYourCalm, opaqueData: nil))
        context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
        // Once swift-nio-http2 has finished the read under way (see ``ServerPipeline/CloseOnConnectionError``).
        let channel = context.channel
        context.eventLoop.execute { channel.close(promise: nil) }
    }

    /// First in a stream's pipeline: hands the stream's `WINDOW_UPDATE` frames to its connection's guard.
    final class StreamCounter: ChannelInboundHandler {
        typealias InboundIn = HTTP2Frame.FramePayload
        typealias InboundOut = HTTP2Frame.FramePayload

        private let connection: WindowUpdateFloodGuard

        init(connection: WindowUpdateFloodGuard) {
            self.connection = connection
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .windowUpdate(let increment) = unwrapInboundIn(data) {
                connection.counted(increment: increment)
            }
            context.fireChannelRead(data)
        }
    }
}
