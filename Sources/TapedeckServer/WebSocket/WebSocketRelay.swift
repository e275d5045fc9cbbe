import Foundation
import NIOCore
import TapedeckCore

/// What the recording proxy heard of one WebSocket conversation, on the event loop both
/// connections share: each message with its side and time after the upgrade, until either
/// side closed; then handed to `finished` once.
final class WebSocketTranscript {
    private(set) var messages: [WebSocketMessage] = []
    /// The sides that sent a close.
    private var closedSides: Set<WebSocketMessage.Side> = []
    private let start: NIODeadline
    private var finished: ((WebSocketTranscript) -> Void)?

    init(start: NIODeadline, finished: @escaping (WebSocketTranscript) -> Void) {
        self.start = start
        self.finished = finished
    }

    func note(_ content: WebSocketMessage.Content, from side: WebSocketMessage.Side) {
        messages.append(WebSocketMessage(from: side, atMs: UpstreamExchange.milliseconds(.now() - start), content: content))
        if case .close = content { closedSides.insert(side) }
    }

    /// Whether both sides sent a close (the closing handshake is over).
    var bothClosed: Bool { closedSides.count == 2 }

    func finish() {
        finished?(self)
        finished = nil
    }
}

/// One side of a recorded WebSocket conversation: passes each whole message to the other side's
/// connection and notes it in the shared transcript. A side that reads only while its partner
/// can write keeps memory bounded when a peer stops reading. The conversation ends when both
/// sides closed, or either connection went: the other is closed too (1001, going away).
final class WebSocketRelay: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketMessage.Content
    typealias OutboundOut = WebSocketMessage.Content

    private let side: WebSocketMessage.Side
    private let transcript: WebSocketTranscript
    private var partner: WebSocketRelay?
    private var context: ChannelHandlerContext?
    /// The last message written to this side: the connection closes once it is out.
    private var lastWrite: EventLoopFuture<Void>?

    private init(side: WebSocketMessage.Side, transcript: WebSocketTranscript) {
        self.side = side
        self.transcript = transcript
    }

    /// The client's side and the upstream's, relaying to each other.
    static func pair(transcript: WebSocketTranscript) -> (client: WebSocketRelay, upstream: WebSocketRelay) {
        let client = WebSocketRelay(side: .client, transcript: transcript)
        let upstream = WebSocketRelay(side: .server, transcript: transcript)
        client.partner = upstream
        upstream.partner = client
        return (client, upstream)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let content = unwrapInboundIn(data)
        transcript.note(content, from: side)
        partner?.send(content)
        if transcript.bothClosed { end() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        partner?.context?.channel.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenFailure { _ in }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.send(.close(code: 1001, reason: "the other side went away"))
        end()
        context.fireChannelInactive()
    }

    private func send(_ content: WebSocketMessage.Content) {
        // A second close to this side is dropped by its WebSocketMessageReader.
        guard let context, context.channel.isActive else { return }
        lastWrite = context.writeAndFlush(wrapOutboundOut(content))
    }

    /// Records the conversation and closes both connections once their last frames are out.
    private func end() {
        transcript.finish()
        for relay in [self, partner] {
            guard let relay, let channel = relay.context?.channel else { continue }
            if let lastWrite = relay.lastWrite {
                lastWrite.whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        }
        partner?.partner = nil
        partner = nil
    }
}
