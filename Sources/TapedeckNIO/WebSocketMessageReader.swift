import Foundation
import NIOCore
import NIOWebSocket
import TapedeckCore

/// One side of a WebSocket connection as whole messages: reads frames into messages (fragments
/// joined, decompressed under `permessage-deflate`), answers pings, and holds the peer to RFC 6455,
/// closing only this connection with the code that names what it broke; writes each message it is
/// given as one frame (compressed when the extension was agreed), and one close frame at most
/// (RFC 6455 section 5.5.1: a later close is dropped, its write reported done).
///
/// Behind it in the pipeline, a handler reads and writes ``WebSocketMessage/Content`` only
/// (the replay server's `WebSocketPlayer`, the recording proxy's `WebSocketRelay`, the
/// connector's `NIOWebSocketConnection`).
package final class WebSocketMessageReader: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = WebSocketFrame
    package typealias InboundOut = WebSocketMessage.Content
    package typealias OutboundIn = WebSocketMessage.Content
    package typealias OutboundOut = WebSocketFrame

    /// A peer that broke the protocol, as the event this handler sends on before closing.
    package struct Violation: Error, Hashable {
        /// The close code sent: 1002 protocol error, 1007 invalid text, 1009 too big.
        package var code: UInt16
        /// What the peer did.
        package var reason: String
    }

    /// Whether the peer is the client: its frames must be masked and ours are not (and the other way round).
    private let peerIsClient: Bool
    /// The largest message taken, fragments joined.
    private let maxMessageSize: Int
    /// The connection's `permessage-deflate`, when agreed.
    private let deflate: PerMessageDeflateCodec?
    /// A fragmented message under way: its first frame's opcode, whether it is compressed, and the bytes so far.
    private var fragments: (opcode: WebSocketOpcode, compressed: Bool, data: ByteBuffer)?
    /// The server's total for unfinished messages, if any, and what this connection holds of it.
    private let budget: WebSocketBufferBudget?
    private var held = 0
    /// Set once the peer broke the protocol: nothing more is read from it.
    private var hasFailed = false
    /// Set once a close frame was written: no other is.
    private var closeSent = false

    /// - Parameter budget: the total the unfinished messages of all connections may hold; none when nil.
    package init(peerIsClient: Bool, maxMessageSize: Int, deflate: PerMessageDeflateCodec? = nil, budget: WebSocketBufferBudget? = nil) {
        self.peerIsClient = peerIsClient
        self.maxMessageSize = maxMessageSize
        self.deflate = deflate
        self.budget = budget
    }

    /// Gives back what the message under way held.
    package func handlerRemoved(context: ChannelHandlerContext) {
        releaseHeld()
    }

    private func releaseHeld() {
        budget?.giveBack(held)
        held = 0
    }

    /// Counts a fragment against the budget; false when the budget is spent.
    private func hold(_ fragment: ByteBuffer, fin: Bool) -> Bool {
        guard let budget, !fin || held > 0 else { return true }
        guard budget.take(fragment.readableBytes) else { return false }
        held += fragment.readableBytes
        return true
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !hasFailed else { return }
        let frame = unwrapInboundIn(data)
        if frame.rsv2 || frame.rsv3 {
            return fail(Violation(code: 1002, reason: "reserved bits set, no extension uses them"), context: context)
        }
        // RSV1 marks a compressed message, on its first frame only.
        if frame.rsv1 && (deflate == nil || !(frame.opcode == .text || frame.opcode == .binary)) {
            let reason = deflate == nil ? "RSV1 set, permessage-deflate was not agreed" : "RSV1 set on a frame that does not begin a message"
            return fail(Violation(code: 1002, reason: reason), context: context)
        }
        if peerIsClient != (frame.maskKey != nil) {
            return fail(Violation(code: 1002, reason: peerIsClient ? "a client frame was not masked" : "a server frame was masked"),
                        context: context)
        }
        let payload = frame.unmaskedData
        switch frame.opcode {
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: maskKey, data: payload)), promise: nil)
        case .pong:
            break
        case .connectionClose:
            readClose(payload, context: context)
        case .text, .binary:
            guard fragments == nil else {
                return fail(Violation(code: 1002, reason: "a new message began before the fragmented one ended"), context: context)
            }
            guard hold(payload, fin: frame.fin) else { return fail(buffersFull, context: context) }
            fragments = (frame.opcode, frame.rsv1, payload)
            take(fin: frame.fin, context: context)
        case .continuation:
            guard fragments != nil else {
                return fail(Violation(code: 1002, reason: "a continuation frame with no message to continue"), context: context)
            }
            guard hold(payload, fin: false) else {
                fragments = nil
                return fail(buffersFull, context: context)
            }
            // Appended in place: a copy bound out of `fragments` would make every append copy the
            // message so far (time quadratic in its size).
            var more = payload
            fragments?.data.writeBuffer(&more)
            take(fin: frame.fin, context: context)
        default:
            fail(Violation(code: 1002, reason: "unknown opcode \(frame.opcode)"), context: context)
        }
    }

    /// Passes on the message under way once its last fragment came; refuses one past the size limit.
    private func take(fin: Bool, context: ChannelHandlerContext) {
        guard let (opcode, compressed, data) = fragments else { return }
        guard data.readableBytes <= maxMessageSize else {
            fragments = nil
            return fail(tooLarge, context: context)
        }
        guard fin else { return }
        fragments = nil
        releaseHeld()
        var message = Data(data.readableBytesView)
        if compressed, let deflate {
            do {
                message = try deflate.decompress(message, limit: maxMessageSize)
            } catch .tooLarge {
                return fail(tooLarge, context: context)
            } catch {
                return fail(Violation(code: 1002, reason: "a compressed message that does not decompress"), context: context)
            }
        }
        if opcode == .binary {
            return context.fireChannelRead(wrapInboundOut(.binary(message)))
        }
        guard let text = String(data: message, encoding: .utf8) else {
            return fail(Violation(code: 1007, reason: "a text message that is not valid UTF-8"), context: context)
        }
        context.fireChannelRead(wrapInboundOut(.text(text)))
    }

    private var tooLarge: Violation { Violation(code: 1009, reason: "a message over \(maxMessageSize) bytes") }
    private var buffersFull: Violation {
        Violation(code: 1009, reason: "the server holds \(budget?.limit ?? 0) bytes of unfinished messages already (--max-websocket-buffer)")
    }

    /// A close frame: no body, or a code and a UTF-8 reason.
    private func readClose(_ payload: ByteBuffer, context: ChannelHandlerContext) {
        var payload = payload
        guard payload.readableBytes != 0 else { return context.fireChannelRead(wrapInboundOut(.close(code: nil, reason: ""))) }
        guard let code = payload.readInteger(as: UInt16.self) else {
            return fail(Violation(code: 1002, reason: "a close frame of one byte"), context: context)
        }
        if let refusal = WebSocketMessage.closeCodeRefusal(code) {
            return fail(Violation(code: 1002, reason: refusal), context: context)
        }
        guard let reason = String(data: Data(payload.readableBytesView), encoding: .utf8) else {
            return fail(Violation(code: 1007, reason: "a close reason that is not valid UTF-8"), context: context)
        }
        context.fireChannelRead(wrapInboundOut(.close(code: code, reason: reason)))
    }

    /// The server is stopping, or no message went either way for the idle timeout (a watch in
    /// front says `IdleStateHandler`'s `all`): the peer is told (1001, going away) and the
    /// connection closes. A tunnel's watch of reads alone (`read`) is not this handler's to act on.
    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is ChannelShouldQuiesceEvent:
            closeConnection(code: 1001, reason: "the server is stopping", context: context)
        case IdleStateHandler.IdleStateEvent.all:
            closeConnection(code: 1001, reason: "no message was sent either way for the idle timeout", context: context)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Errors of the frame decoder: a frame over the size limit is 1009, any other malformed frame
    /// (a control frame over 125 bytes or fragmented) 1002. Any other error (the connection's own)
    /// is passed on and closes this connection: the conversation handlers behind need no rule of their own.
    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? NIOWebSocketError else {
            context.fireErrorCaught(error)
            return context.close(promise: nil)
        }
        switch error {
        case .invalidFrameLength:
            fail(Violation(code: 1009, reason: "a frame over \(maxMessageSize) bytes"), context: context)
        default:
            fail(Violation(code: 1002, reason: "a malformed frame (\(error))"), context: context)
        }
    }

    /// Sends a close frame naming what the peer did, tells the handlers behind, and closes this connection.
    private func fail(_ violation: Violation, context: ChannelHandlerContext) {
        guard !hasFailed else { return }
        hasFailed = true
        fragments = nil
        releaseHeld()
        context.fireErrorCaught(violation)
        closeConnection(code: violation.code, reason: WebSocketConversation.closeReason(violation.reason), context: context)
    }

    /// Sends a close frame (unless one went already) and closes the connection once it is out.
    private func closeConnection(code: UInt16, reason: String, context: ChannelHandlerContext) {
        let channel = context.channel
        let closing = context.eventLoop.makePromise(of: Void.self)
        closing.futureResult.whenComplete { _ in channel.close(promise: nil) }
        write(.close(code: code, reason: reason), context: context, promise: closing)
        context.flush()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        write(unwrapOutboundIn(data), context: context, promise: promise)
    }

    private func write(_ content: WebSocketMessage.Content, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        if case .close = content {
            guard !closeSent else {
                promise?.succeed()
                return
            }
            closeSent = true
        }
        context.write(wrapOutboundOut(frame(for: content, allocator: context.channel.allocator)), promise: promise)
    }

    /// Frames sent to a client are not masked; frames sent to a server are.
    private var maskKey: WebSocketMaskingKey? { peerIsClient ? nil : .random() }

    private func frame(for content: WebSocketMessage.Content, allocator: ByteBufferAllocator) -> WebSocketFrame {
        switch content {
        case .text(let text):
            return dataFrame(.text, Data(text.utf8), allocator: allocator)
        case .binary(let data):
            return dataFrame(.binary, data, allocator: allocator)
        case .close(let code, let reason):
            var payload = allocator.buffer(capacity: 2 + reason.utf8.count)
            if let code {
                payload.writeInteger(code)
                payload.writeString(reason)
            }
            return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: maskKey, data: payload)
        }
    }

    private func dataFrame(_ opcode: WebSocketOpcode, _ message: Data, allocator: ByteBufferAllocator) -> WebSocketFrame {
        if let compressed = deflate?.compress(message) {
            return WebSocketFrame(fin: true, rsv1: true, opcode: opcode, maskKey: maskKey, data: allocator.buffer(bytes: compressed))
        }
        return WebSocketFrame(fin: true, opcode: opcode, maskKey: maskKey, data: allocator.buffer(bytes: message))
    }
}
