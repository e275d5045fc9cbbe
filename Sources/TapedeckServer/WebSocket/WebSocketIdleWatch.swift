import NIOCore
import NIOWebSocket

/// Says a WebSocket conversation is idle (`IdleStateHandler.IdleStateEvent.all`, which
/// `WebSocketMessageReader` behind it answers with 1001) once no message frame went either way
/// for the idle timeout. Pings and pongs are not progress: a client that only pings holds no
/// socket open for longer than that.
final class WebSocketIdleWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let timeout: TimeAmount
    private var lastMessage = NIODeadline.uptimeNanoseconds(0)
    private var check: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastMessage = context.eventLoop.now
        arm(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        noteProgress(unwrapInboundIn(data), context: context)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        noteProgress(unwrapOutboundIn(data), context: context)
        context.write(data, promise: promise)
    }

    private func noteProgress(_ frame: WebSocketFrame, context: ChannelHandlerContext) {
        switch frame.opcode {
        case .ping, .pong: break
        default: lastMessage = context.eventLoop.now
        }
    }

    private func arm(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(deadline: lastMessage + timeout) {
            let (watch, context) = bound.value
            if context.eventLoop.now >= watch.lastMessage + watch.timeout {
                watch.check = nil
                context.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.all)
            } else {
                watch.arm(context: context)
            }
        }
    }
}
