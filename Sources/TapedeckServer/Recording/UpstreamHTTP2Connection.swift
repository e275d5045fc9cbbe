import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import NIOTLS

/// One HTTP/2 connection to an upstream, shared by every stream of one HTTP/2 client connection
/// (SPEC 12): each forwarded request opens a stream on it, and that stream is an
/// ``UpstreamConnection`` carrying one exchange, behind SwiftNIO's translation of HTTP/2 frames
/// into HTTP/1 parts. SwiftNIO's HTTP/2 handler applies flow control per stream, and holds back
/// streams past the upstream's `SETTINGS_MAX_CONCURRENT_STREAMS` until others end.
final class UpstreamHTTP2Connection {
    /// Where it is connected.
    let origin: UpstreamOrigin
    private let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer

    private init(origin: UpstreamOrigin, channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer) {
        self.origin = origin
        self.channel = channel
        self.multiplexer = multiplexer
    }

    /// Whether new streams may be opened on it.
    var isOpen: Bool { channel.isActive }

    /// Connects on `eventLoop` and waits for the upstream's `SETTINGS`: over TLS when the origin is
    /// https (`tls` offers ALPN `h2`), by prior knowledge otherwise. Fails with
    /// ``UpstreamRefusedHTTP2`` when the upstream speaks only HTTP/1: ALPN chose something else,
    /// or the upstream's first bytes cannot begin a `SETTINGS` frame (an HTTP/1 answer to the
    /// preface), or it closed before its `SETTINGS`.
    static func connect(to origin: UpstreamOrigin, tls: NIOSSLContext, timeout: TimeAmount, on eventLoop: any EventLoop,
                        dialer: UpstreamDialer) -> EventLoopFuture<UpstreamHTTP2Connection> {
        let greeted = eventLoop.makePromise(of: NIOHTTP2Handler.StreamMultiplexer.self)
        let dialing = dialer.dial(origin, origin.isSecure ? tls : nil, timeout, eventLoop) { operations in
            guard origin.isSecure else {
                return try addHTTP2Handlers(operations, greeted: greeted)
            }
            // Until ALPN has chosen, a failed handshake fails the wait here.
            try operations.addHandler(FailureBeforeGreeting(greeted: greeted))
            try operations.addHandler(ApplicationProtocolNegotiationHandler { result, channel in
                guard case .negotiated("h2") = result else {
                    greeted.fail(UpstreamRefusedHTTP2())
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try addHTTP2Handlers(channel.pipeline.syncOperations, greeted: greeted)
                }
            })
        }
        dialing.whenFailure { greeted.fail($0) }
        return dialing.and(greeted.futureResult).map { channel, multiplexer in
            UpstreamHTTP2Connection(origin: origin, channel: channel, multiplexer: multiplexer)
        }
    }

    private static func addHTTP2Handlers(_ operations: ChannelPipeline.SynchronousOperations,
                                         greeted: EventLoopPromise<NIOHTTP2Handler.StreamMultiplexer>) throws {
        let greeting = HTTP2Greeting(greeted: greeted)
        try operations.addHandler(greeting.http1Detector)
        let multiplexer = try operations.configureHTTP2Pipeline(
            mode: .client, connectionConfiguration: .init(), streamConfiguration: .init()) { stream in
            // The upstream opens no streams of its own (no server push is asked for).
            stream.close()
        }
        greeting.multiplexer = multiplexer
        try operations.addHandler(greeting)
        try operations.addHandler(ServerPipeline.CloseOnConnectionError())
    }

    /// Opens a stream for one exchange.
    func openStream() -> EventLoopFuture<UpstreamConnection> {
        let httpProtocol: HTTP2FramePayloadToHTTP1ClientCodec.HTTPProtocol = origin.isSecure ? .https : .http
        let origin = origin
        return multiplexer.createStreamChannel { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandlers([
                    HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: httpProtocol),
                    UpstreamResponseHandler(),
                ])
            }
        }.flatMapThrowing { stream in
            try UpstreamConnection(origin: origin, stream: stream)
        }
    }

    /// Whether `error` says the upstream did not process a stream, so that its request may go again
    /// on another connection (RFC 9113, section 8.7): it refused it (`REFUSED_STREAM`), or the
    /// stream was beyond the last one its `GOAWAY` named, which swift-nio-http2 reports as closed
    /// with `CANCEL`. (An upstream that resets a stream with `CANCEL` itself is taken at its word too.)
    static func isRefusal(_ error: any Error) -> Bool {
        guard let closed = error as? NIOHTTP2Errors.StreamClosed else { return false }
        return closed.errorCode == .refusedStream || closed.errorCode == .cancel
    }

    /// Closes the connection and its streams; their exchanges hear that the upstream closed.
    func close() {
        channel.close(promise: nil)
    }
}

/// The upstream did not take HTTP/2: the request goes over HTTP/1.1 instead.
struct UpstreamRefusedHTTP2: Error {}

/// Fails the wait for the upstream's greeting with the error of a connection that fails before
/// ALPN has chosen (a TLS handshake that fails); once the wait is over, failing it again does nothing.
private final class FailureBeforeGreeting: ChannelInboundHandler {
    typealias InboundIn = Never

    private let greeted: EventLoopPromise<NIOHTTP2Handler.StreamMultiplexer>

    init(greeted: EventLoopPromise<NIOHTTP2Handler.StreamMultiplexer>) {
        self.greeted = greeted
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        greeted.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        greeted.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}

/// Waits for the upstream's first `SETTINGS` frame, which says the connection speaks HTTP/2.
/// The wait fails with the error when the connection fails first, and with
/// ``UpstreamRefusedHTTP2`` when it closes first or its first bytes are an HTTP/1 answer to the
/// preface (``HTTP1AnswerDetector``).
private final class HTTP2Greeting: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame

    private let greeted: EventLoopPromise<NIOHTTP2Handler.StreamMultiplexer>
    var multiplexer: NIOHTTP2Handler.StreamMultiplexer?
    private var isDone = false

    init(greeted: EventLoopPromise<NIOHTTP2Handler.StreamMultiplexer>) {
        self.greeted = greeted
    }

    /// Looks at the connection's first bytes, before the HTTP/2 handler parses them.
    var http1Detector: HTTP1AnswerDetector { HTTP1AnswerDetector(greeting: self) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let isSettings = if case .settings(.settings) = unwrapInboundIn(data).payload { true } else { false }
        context.fireChannelRead(data)
        if isSettings, let multiplexer {
            finish(.success(multiplexer))
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(UpstreamRefusedHTTP2()))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error))
        context.fireErrorCaught(error)
    }

    func finish(_ result: Result<NIOHTTP2Handler.StreamMultiplexer, any Error>) {
        guard !isDone else { return }
        isDone = true
        greeted.completeWith(result)
    }

    /// Fails the greeting when the upstream answers the preface in HTTP/1, then steps aside.
    ///
    /// An HTTP/2 server's first frame is `SETTINGS` (RFC 9113, section 3.4), whose type, the
    /// fourth byte of the frame, is 4. An HTTP/1 server's answer to the preface cannot begin so:
    /// a status line (`HTTP/1.1 400`), or, from a server that takes `PRI * HTTP/2.0` for an
    /// HTTP/0.9 request (Python's `http.server`), a bare error page with no status line at all.
    final class HTTP1AnswerDetector: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer

        private let greeting: HTTP2Greeting

        init(greeting: HTTP2Greeting) {
            self.greeting = greeting
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if !Self.mayBeginSettingsFrame(unwrapInboundIn(data).readableBytesView) {
                greeting.finish(.failure(UpstreamRefusedHTTP2()))
                context.close(promise: nil)
                return
            }
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }

        /// Whether `bytes`, the first the upstream sent, may begin a `SETTINGS` frame. Fewer than
        /// four bytes cannot tell; SwiftNIO's HTTP/2 handler then judges the frame.
        static func mayBeginSettingsFrame(_ bytes: ByteBufferView) -> Bool {
            bytes.count < 4 || bytes[bytes.startIndex + 3] == 0x04
        }
    }
}
