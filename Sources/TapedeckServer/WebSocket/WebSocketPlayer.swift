import NIOCore
import TapedeckCore

/// Plays a recorded conversation to the client of the replay server: carries out the actions of
/// ``WebSocketConversation`` on the channel, each send scheduled after the one before it, and
/// reports the conversation once the connection ends (the journal and the inspector show it).
final class WebSocketPlayer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketMessage.Content
    typealias OutboundOut = WebSocketMessage.Content

    /// How long a close sent first waits for the client's close before the connection closes.
    static let closingGrace = TimeAmount.seconds(2)

    private var conversation: WebSocketConversation
    /// When the last scheduled action goes; the next one is paced from it.
    private var lastAction: NIODeadline?
    private let ended: @Sendable (WebSocketConversation) -> Void
    private var hasEnded = false

    init(_ conversation: WebSocketConversation, ended: @escaping @Sendable (WebSocketConversation) -> Void) {
        self.conversation = conversation
        self.ended = ended
    }

    func handlerAdded(context: ChannelHandlerContext) {
        perform(conversation.start(), context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        if conversation.isOver {
            // The client's answer to a close we sent.
            if case .close = message { context.close(promise: nil) }
            return
        }
        lastAction = max(lastAction ?? .now(), .now())
        perform(conversation.received(message), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    private func end() {
        guard !hasEnded else { return }
        hasEnded = true
        ended(conversation)
    }

    private func perform(_ actions: [WebSocketConversation.Action], context: ChannelHandlerContext) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        for action in actions {
            let (content, after, closes): (WebSocketMessage.Content, Duration, Bool) = switch action {
            case .send(let content, let after): (content, after, false)
            case .close(let code, let reason, let after): (.close(code: code, reason: reason), after, true)
            }
            let deadline = (lastAction ?? .now()) + TimeAmount(after)
            lastAction = deadline
            let answersClientClose = conversation.clientHasClosed
            context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
                let context = bound.value
                let written = context.writeAndFlush(NIOAny(content))
                guard closes else { return }
                let channel = context.channel
                if answersClientClose {
                    written.whenComplete { _ in channel.close(promise: nil) }
                } else {
                    channel.eventLoop.scheduleTask(in: Self.closingGrace) { channel.close(promise: nil) }
                }
            }
        }
    }
}
