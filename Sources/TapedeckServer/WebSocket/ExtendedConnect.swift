import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// RFC 8441's extended CONNECT on an HTTP/2 stream: `CONNECT` with `:protocol: websocket` is
/// the HTTP/2 form of HTTP/1.1's `Upgrade: websocket` (the server offers it with
/// `SETTINGS_ENABLE_CONNECT_PROTOCOL`).
///
/// In front of SwiftNIO's HTTP/1 translation, this handler hands such a request on as the upgrade
/// it stands for (`GET` with `Upgrade: websocket` and a key of its own, which RFC 8441 does not
/// have), so the front door and the modes decide it like any handshake, and the recorded
/// handshake is the same whichever protocol the client spoke. Once accepted, the stream answers
/// 200 and carries the WebSocket framing in its DATA frames (``WebSocketOverHTTP2Stream``).
/// Any other `:protocol` gets 501.
final class ExtendedConnect: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    /// Whether this stream's request is a WebSocket handshake by extended CONNECT.
    private(set) var isWebSocket = false
    private var sawRequest = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !sawRequest, case .headers(var request) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        sawRequest = true
        guard request.headers.first(name: ":method") == "CONNECT", let wanted = request.headers.first(name: ":protocol") else {
            return context.fireChannelRead(data)
        }
        guard wanted.lowercased() == "websocket" else {
            let refusal = HPACKHeaders([(":status", "501"), ("tapedeck-error", "extended CONNECT is offered for websocket only, not \(wanted)")])
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: refusal, endStream: true))), promise: nil)
            return
        }
        isWebSocket = true
        request.headers = Self.upgrade(standingFor: request.headers)
        // The request has no body: the handshake is decided now. What the stream carries after
        // the answer is the WebSocket's, read once the stream has switched.
        request.endStream = true
        context.fireChannelRead(wrapInboundOut(.headers(request)))
    }

    /// The header block of an HTTP/1.1 upgrade standing for an extended CONNECT's.
    static func upgrade(standingFor headers: HPACKHeaders) -> HPACKHeaders {
        var upgrade = HPACKHeaders()
        for (name, value, indexing) in headers where name != ":protocol" {
            upgrade.add(name: name, value: name == ":method" ? "GET" : value, indexing: indexing)
        }
        upgrade.add(name: "upgrade", value: "websocket")
        upgrade.add(name: "connection", value: "upgrade")
        if !upgrade.contains(name: "sec-websocket-key") {
            let key = (0..<16).map { _ in UInt8.random(in: 0...255) }
            upgrade.add(name: "sec-websocket-key", value: Data(key).base64EncodedString())
        }
        if !upgrade.contains(name: "sec-websocket-version") { upgrade.add(name: "sec-websocket-version", value: "13") }
        return upgrade
    }

    /// The answer to an extended CONNECT: the 101's headers as a 200, without what belongs to
    /// HTTP/1.1's upgrade (`Upgrade`, `Connection`, `Sec-WebSocket-Accept`).
    static func answer(standingFor switching: HTTPResponseHead) -> HTTPResponseHead {
        var head = switching
        head.status = .ok
        for name in ["Upgrade", "Connection", "Sec-WebSocket-Accept"] { head.headers.remove(name: name) }
        return head
    }
}

/// A WebSocket carried by an HTTP/2 stream (RFC 8441): the stream's DATA frames are the bytes of
/// the WebSocket framing, both ways. Closing the socket ends the stream (END_STREAM). A client
/// ends its side with its close frame; the conversation answers it and closes, or the stream
/// closes once ``WebSocketPlayer/closingGrace`` has passed.
final class WebSocketOverHTTP2Stream: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .data(let data):
            if case .byteBuffer(let bytes) = data.data, bytes.readableBytes > 0 {
                context.fireChannelRead(wrapInboundOut(bytes))
            }
            if data.endStream { clientEnded(context: context) }
        case .headers(let headers) where headers.endStream:
            clientEnded(context: context)
        default:
            break
        }
    }

    private func clientEnded(context: ChannelHandlerContext) {
        let channel = context.channel
        context.eventLoop.scheduleTask(in: WebSocketPlayer.closingGrace) { channel.close(promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(wrapOutboundOut(.data(.init(data: .byteBuffer(unwrapOutboundIn(data))))), promise: promise)
    }

    /// Ends the stream cleanly (an empty DATA frame with END_STREAM) before the channel closes.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, context.channel.isActive else { return context.close(mode: mode, promise: promise) }
        let end = HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))
        context.writeAndFlush(wrapOutboundOut(end)).assumeIsolated().whenComplete { _ in context.close(mode: mode, promise: promise) }
    }
}
