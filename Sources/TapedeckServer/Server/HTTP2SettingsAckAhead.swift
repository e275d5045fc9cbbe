import NIOCore

/// Gives a client's first requests the header room the server advertises, before the client has
/// acknowledged the server's SETTINGS. swift-nio-http2's HPACK decoder takes header blocks of at
/// most 16 KiB until that acknowledgement, and ends the connection past it; a client such as curl
/// sends its first request before it has read the server's SETTINGS.
///
/// In front of SwiftNIO's HTTP/2 handler, this reads the frame headers of the client's bytes until
/// the acknowledgement arrives. A header block that may decode past 16 KiB (in several frames, or
/// over ``holdSize`` bytes, since Huffman coding packs up to 8 characters in 5 bytes) is held back,
/// with every frame after it, until the acknowledgement comes; that is then handed on first and
/// the held frames after it, so the block is decoded under the advertised limit. Nothing is held
/// for a connection whose header blocks are small. Past ``holdLimit`` held
/// bytes, or ``holdTime`` without an acknowledgement, the frames go on as they came (and the
/// library answers as it would have). Once the acknowledgement has passed, this leaves the pipeline.
final class HTTP2SettingsAckAhead: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The most bytes held back waiting for the acknowledgement.
    static let holdLimit = ServerPipeline.http2HeaderBlockLimit + 64 * 1024
    /// A `HEADERS` frame larger than this is held: it may decode past 16 KiB.
    static let holdSize = 8 * 1024
    /// How long held frames wait for the acknowledgement.
    static let holdTime = TimeAmount.seconds(1)

    private static let frameHeaderSize = 9
    private static let settingsType: UInt8 = 0x04
    private static let headersType: UInt8 = 0x01
    private static let ackFlag: UInt8 = 0x01
    private static let endHeadersFlag: UInt8 = 0x04

    /// Bytes read and not yet handed on: the connection preface first, then whole frames.
    private var unread = ByteBuffer()
    private var prefaceRemaining = HTTPVersionSniffer.preface.count
    /// Whole frames held back behind a header block in several frames; nil while nothing is held.
    private var held: ByteBuffer?
    private var release: Scheduled<Void>?

    func handlerRemoved(context: ChannelHandlerContext) {
        release?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        unread.writeBuffer(&bytes)
        if prefaceRemaining > 0 {
            let preface = min(prefaceRemaining, unread.readableBytes)
            prefaceRemaining -= preface
            context.fireChannelRead(wrapInboundOut(unread.readSlice(length: preface)!))
        }
        while let frame = nextFrame() {
            if frame.type == Self.settingsType, frame.flags & Self.ackFlag != 0 {
                context.fireChannelRead(wrapInboundOut(frame.bytes))
                return leave(context: context)
            }
            if held == nil, frame.type == Self.headersType,
               frame.flags & Self.endHeadersFlag == 0 || frame.bytes.readableBytes - Self.frameHeaderSize > Self.holdSize {
                hold(context: context)
            }
            if held != nil {
                var bytes = frame.bytes
                held!.writeBuffer(&bytes)
                if held!.readableBytes > Self.holdLimit { return leave(context: context) }
            } else {
                context.fireChannelRead(wrapInboundOut(frame.bytes))
            }
        }
    }

    /// The next whole frame in ``unread``, with its type and flags.
    private func nextFrame() -> (type: UInt8, flags: UInt8, bytes: ByteBuffer)? {
        guard prefaceRemaining == 0, unread.readableBytes >= Self.frameHeaderSize,
              let length = unread.getInteger(at: unread.readerIndex, as: UInt32.self).map({ Int($0 >> 8) }),
              let type = unread.getInteger(at: unread.readerIndex + 3, as: UInt8.self),
              let flags = unread.getInteger(at: unread.readerIndex + 4, as: UInt8.self),
              unread.readableBytes >= Self.frameHeaderSize + length else { return nil }
        return (type, flags, unread.readSlice(length: Self.frameHeaderSize + length)!)
    }

    private func hold(context: ChannelHandlerContext) {
        held = ByteBuffer()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        release = context.eventLoop.scheduleTask(in: Self.holdTime) {
            let (handler, context) = bound.value
            handler.leave(context: context)
        }
    }

    /// Hands on what is held and what is unread, in order, and leaves the pipeline.
    private func leave(context: ChannelHandlerContext) {
        release?.cancel()
        release = nil
        if let held, held.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(held)) }
        held = nil
        if unread.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(unread)) }
        unread = ByteBuffer()
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }
}
