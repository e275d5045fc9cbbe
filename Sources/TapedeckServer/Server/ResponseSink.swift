import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOPosix
@_spi(Internals) import TapedeckCore
import TapedeckNIO

/// Where a responder writes its answer: safe to call from any thread, it hops to the
/// connection's event loop. Replay delays are scheduled on that loop, never slept.
package struct ResponseSink: Sendable {
    /// The connection's event loop.
    package let eventLoop: any EventLoop
    /// Whether the request was `HEAD`, so no body may be sent.
    package let isHead: Bool
    /// Whether the client takes trailing headers (``IncomingRequest/takesTrailers``); others are dropped.
    package let takesTrailers: Bool
    /// The number of the answer this sink writes; the handler drops writes for any other (``ExchangeStateMachine/accepts(_:)``).
    let answer: Int
    let handler: NIOLoopBound<ExchangeHandler>
    let context: NIOLoopBound<ChannelHandlerContext>
    private let connectionScope: NIOLoopBound<ConnectionScope>
    private let delayObserver: (@Sendable (ResponseDelay) -> Void)?
    /// The largest WebSocket message either side of a conversation may send.
    let maxMessageSize: Int

    init(handler: ExchangeHandler, context: ChannelHandlerContext, scope: ConnectionScope, answer: Int, for request: IncomingRequest,
         configuration: ServerConfiguration) {
        eventLoop = context.eventLoop
        self.answer = answer
        isHead = request.head.method == .head
        takesTrailers = request.takesTrailers
        self.handler = NIOLoopBound(handler, eventLoop: context.eventLoop)
        self.context = NIOLoopBound(context, eventLoop: context.eventLoop)
        connectionScope = NIOLoopBound(scope, eventLoop: context.eventLoop)
        delayObserver = configuration.delayObserver
        maxMessageSize = configuration.maxMessageSize
    }

    /// What lives as long as the client connection; on the event loop only.
    var scope: ConnectionScope { connectionScope.value }

    /// Completes when the client's connection, or its HTTP/2 stream, closes; on the event loop only.
    var clientClosed: EventLoopFuture<Void> { context.value.channel.closeFuture }

    private func onLoop(_ body: @escaping @Sendable (ExchangeHandler, ChannelHandlerContext) -> Void) {
        if eventLoop.inEventLoop {
            body(handler.value, context.value)
        } else {
            let sink = self
            eventLoop.execute { body(sink.handler.value, sink.context.value) }
        }
    }

    /// Sends a whole response at once, with `trailers` after the body when the client takes them:
    /// framed as ``PreparedResponse/framed(for:)`` says, with a Content-Length only when no trailers follow.
    package func send(_ response: HTTPResponse, body: ByteBuffer = ByteBuffer(), trailers: HTTPFields? = nil) {
        var response = response
        let trailers = takesTrailers ? trailers.map(HTTPHeaders.init) : nil
        if trailers == nil {
            response.headerFields[.contentLength] = String(body.readableBytes)
        }
        let head = HTTPResponseHead(response)
        let isHead = isHead
        onLoop { handler, context in
            handler.writeHead(head, answer: answer, context: context)
            if !isHead && body.readableBytes > 0 { handler.writeBody(body, answer: answer, context: context) }
            handler.writeEnd(answer: answer, context: context, trailers: trailers, promise: nil)
        }
    }

    /// Sends a prepared replay response, with its head, body or chunks at the delays given,
    /// counted from the request's arrival and scheduled on the event loop.
    package func send(_ response: PreparedResponse, delay: ResponseDelay, arrival: NIODeadline) {
        delayObserver?(delay)
        let isHead = isHead
        if delay.head <= .zero && delay.total <= .zero && response.chunks == nil && eventLoop.inEventLoop {
            // The common case: no latency, on the connection's own loop; write at once.
            let (handler, context) = (self.handler.value, self.context.value)
            handler.writeHead(response.head, answer: answer, context: context)
            Self.writeBodyAndEnd(response, isHead: isHead, answer: answer, handler: handler, context: context)
            return
        }
        onLoop { handler, context in
            let bound = NIOLoopBound((handler, context), eventLoop: context.eventLoop)
            func at(_ offset: Duration, _ work: @escaping @Sendable () -> Void) {
                if offset <= .zero {
                    work()
                } else {
                    context.eventLoop.scheduleTask(deadline: arrival + TimeAmount(offset)) { work() }
                }
            }
            at(delay.head) { let (h, c) = bound.value; h.writeHead(response.head, answer: answer, context: c) }
            if isHead {
                at(delay.head) { let (h, c) = bound.value; h.writeEnd(answer: answer, context: c, promise: nil) }
                return
            }
            if let chunks = response.chunks {
                for (number, chunk) in chunks.enumerated() {
                    let offset = number < delay.chunks.count ? max(delay.chunks[number], delay.head) : delay.head
                    at(offset) { let (h, c) = bound.value; h.writeBody(chunk, answer: answer, context: c, flush: true) }
                }
                let last = max(delay.total, delay.chunks.last ?? .zero, delay.head)
                at(last) { let (h, c) = bound.value; h.writeEnd(answer: answer, context: c, trailers: response.trailers, promise: nil) }
            } else {
                at(max(delay.total, delay.head)) {
                    let (h, c) = bound.value
                    Self.writeBodyAndEnd(response, isHead: false, answer: answer, handler: h, context: c)
                }
            }
        }
    }

    /// Writes a prepared response's body, from memory or from its side file, and ends the response.
    private static func writeBodyAndEnd(_ response: PreparedResponse, isHead: Bool, answer: Int, handler: ExchangeHandler,
                                        context: ChannelHandlerContext) {
        if !isHead, let file = response.file {
            writeFile(file, answer: answer, trailers: response.trailers, handler: handler, context: context)
            return
        }
        if !isHead && response.body.readableBytes > 0 { handler.writeBody(response.body, answer: answer, context: context) }
        handler.writeEnd(answer: answer, context: context, trailers: isHead ? nil : response.trailers, promise: nil)
    }

    /// Runs `body` on the connection's event loop with a promise it completes. Called off that
    /// loop, the future returned belongs to the caller's event loop (when there is one) and fails
    /// if the connection's loop shut down before running `body`, so no promise is ever left behind.
    private func onLoop(completing body: @escaping @Sendable (ExchangeHandler, ChannelHandlerContext, EventLoopPromise<Void>) -> Void)
        -> EventLoopFuture<Void> {
        if eventLoop.inEventLoop {
            let promise = eventLoop.makePromise(of: Void.self)
            body(handler.value, context.value, promise)
            return promise.futureResult
        }
        let callerLoop = MultiThreadedEventLoopGroup.currentEventLoop ?? eventLoop
        let handover = PromiseHandover(callerLoop.makePromise(of: Void.self))
        let sink = self
        eventLoop.execute {
            let promise = sink.eventLoop.makePromise(of: Void.self)
            handover.take().map { promise.futureResult.cascade(to: $0) }
            body(sink.handler.value, sink.context.value, promise)
        }
        return handover.future
    }

    /// Writes a response head now (streaming); completes when written.
    package func writeHead(_ response: HTTPResponse) -> EventLoopFuture<Void> {
        let head = HTTPResponseHead(response)
        return onLoop { handler, context, promise in
            handler.writeHead(head, answer: answer, context: context)
            context.flush()
            promise.succeed()
        }
    }

    /// Writes one piece of body now (streaming); completes when written to the socket.
    package func writeBody(_ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let isHead = isHead
        return onLoop { handler, context, promise in
            if isHead { promise.succeed(); return }
            handler.writeBody(buffer, answer: answer, context: context, flush: true, promise: promise)
        }
    }

    /// Writes a response head for streaming, on the connection's event loop; it leaves with the
    /// next ``flush()`` or the end.
    package func streamHead(_ head: HTTPResponseHead) {
        // On the loop (the recording proxy's case) without a closure to allocate, as in flush() and end().
        guard eventLoop.inEventLoop else { return onLoop { handler, context in handler.writeHead(head, answer: answer, context: context) } }
        handler.value.writeHead(head, answer: answer, context: context.value)
    }

    /// Writes one piece of a streamed body, on the connection's event loop; it leaves with the
    /// next ``flush()`` or the end. Returns nil while the client keeps up, else what to wait for
    /// before producing more (backpressure). A client that went away shows in ``end()``.
    package func streamBody(_ buffer: ByteBuffer) -> EventLoopFuture<Void>? {
        if isHead { return nil }
        if eventLoop.inEventLoop {
            let (handler, context) = (self.handler.value, self.context.value)
            guard !context.channel.isWritable else {
                handler.writeBody(buffer, answer: answer, context: context)
                return nil
            }
            let promise = eventLoop.makePromise(of: Void.self)
            handler.writeBody(buffer, answer: answer, context: context, flush: true, promise: promise)
            return promise.futureResult
        }
        return onLoop { handler, context, promise in handler.writeBody(buffer, answer: answer, context: context, flush: true, promise: promise) }
    }

    /// Sends what was streamed so far.
    package func flush() {
        guard eventLoop.inEventLoop else { return onLoop { _, context in context.flush() } }
        context.value.flush()
    }

    /// Ends the response (streaming); completes when written.
    package func end(trailers: HTTPHeaders? = nil) -> EventLoopFuture<Void> {
        let trailers = takesTrailers ? trailers : nil
        guard eventLoop.inEventLoop else {
            return onLoop { handler, context, promise in handler.writeEnd(answer: answer, context: context, trailers: trailers, promise: promise) }
        }
        let promise = eventLoop.makePromise(of: Void.self)
        handler.value.writeEnd(answer: answer, context: context.value, trailers: trailers, promise: promise)
        return promise.futureResult
    }

    /// Turns the connection into a byte tunnel to an upstream (a WebSocket upgrade): connects,
    /// sends `initialBytes` (the request as received), then relays both ways untouched.
    package func tunnel(host: String, port: Int, tls: NIOSSLContext?, initialBytes: ByteBuffer) {
        onLoop { handler, context in
            handler.openUpstreamTunnel(context: context, host: host, port: port, tls: tls, initialBytes: initialBytes)
        }
    }

    /// Gives up on the response and closes the connection (an upstream failed mid-stream).
    package func abort() {
        onLoop { _, context in
            // Send what was already written (the head, the body so far) so the client sees a cut body.
            context.flush()
            context.close(promise: nil)
        }
    }
}

/// A promise handed from the caller's event loop to work on another loop: failed when that
/// work is dropped unrun (its event loop shut down), left to the work once it runs.
private final class PromiseHandover: Sendable {
    /// The caller's future.
    let future: EventLoopFuture<Void>
    private let promise: Locked<EventLoopPromise<Void>?>

    init(_ promise: EventLoopPromise<Void>) {
        future = promise.futureResult
        self.promise = Locked(promise)
    }

    /// The promise, for the work that completes it; nil when already taken.
    func take() -> EventLoopPromise<Void>? {
        promise.withLock { promise in
            defer { promise = nil }
            return promise
        }
    }

    deinit {
        take()?.fail(EventLoopError.shutdown)
    }
}

extension TimeAmount {
    /// Converts a Swift duration, saturating at about 292 years either way rather than overflowing.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        self = .nanoseconds(overflow || overflowAgain ? (seconds < 0 ? .min : .max) : total)
    }
}
