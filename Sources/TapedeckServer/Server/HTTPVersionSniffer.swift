import NIOCore

/// Looks at the first bytes of a plain connection (or of a plain tunnel): the HTTP/2 connection
/// preface, `PRI * HTTP/2.0…`, means HTTP/2 by prior knowledge and gets the HTTP/2 handlers;
/// anything else gets HTTP/1.1's. It decides once, as soon as the bytes tell (a request that
/// starts with `P` may need a second read), hands them on, and leaves the pipeline.
final class HTTPVersionSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The connection preface every HTTP/2 client sends first (RFC 9113, section 3.4).
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Adds the handlers of the protocol found, after this one: `true` for HTTP/2.
    private let install: (ChannelPipeline.SynchronousOperations, _ isHTTP2: Bool) throws -> Void
    /// Bytes that could still be the start of the preface.
    private var buffered: ByteBuffer?

    init(install: @escaping (ChannelPipeline.SynchronousOperations, _ isHTTP2: Bool) throws -> Void) {
        self.install = install
    }

    /// Which protocol bytes at the start of a connection are: nil while they are a strict prefix of the preface.
    static func isHTTP2(_ start: ByteBuffer) -> Bool? {
        let seen = start.readableBytesView.prefix(preface.count)
        guard seen.elementsEqual(preface.prefix(seen.count)) else { return false }
        return seen.count == preface.count ? true : nil
    }

    /// A connection that sends nothing (or not enough to tell) for the idle timeout is closed, and
    /// so is one that has not begun a request when the server stops.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent || event is ChannelShouldQuiesceEvent else {
            return context.fireUserInboundEventTriggered(event)
        }
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if var earlier = buffered {
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        guard let isHTTP2 = Self.isHTTP2(bytes) else {
            buffered = bytes
            return
        }
        buffered = nil
        do {
            try install(context.pipeline.syncOperations, isHTTP2)
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }
}
