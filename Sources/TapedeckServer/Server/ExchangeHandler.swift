import NIOCore
import NIOHTTP1
import NIOSSL
import TapedeckCore

/// Carries out the decisions of ``ExchangeStateMachine`` for one connection: collects each
/// request, hands it to the responder with a ``ResponseSink``, writes what the sink is given,
/// answers refusals, holds reads while a response is under way, and turns `CONNECT` into a
/// tunnel (``ExchangeHandler+Tunnel``). Every decision is the state machine's; this type only
/// translates between it and the channel.
final class ExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var machine: ExchangeStateMachine
    /// Whether waiting parts are being taken up, so that a response ending meanwhile does not start again.
    private var isResuming = false
    let responder: any Responder
    let configuration: ServerConfiguration
    private let tunnelOrigin: String?
    /// What lives as long as this connection (the recording proxy's upstream connection).
    private let scope = ConnectionScope()

    init(responder: any Responder, configuration: ServerConfiguration, tunnelOrigin: String?) {
        self.responder = responder
        self.configuration = configuration
        self.tunnelOrigin = tunnelOrigin
        machine = ExchangeStateMachine(maxBodySize: configuration.maxBodySize, isTunnel: tunnelOrigin != nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(machine.received(unwrapInboundIn(data), now: .now()), context: context)
    }

    func read(context: ChannelHandlerContext) {
        if machine.readRequested() { context.read() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else { return context.fireUserInboundEventTriggered(event) }
        if machine.idleTimeoutFired() { context.close(promise: nil) }
    }

    /// A request that does not parse gets 431 when its headers are too large, 400 otherwise, and
    /// the connection closes (the decoder cannot go on); the server itself stays up. Other
    /// errors, and any error while a response is under way, close the connection.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let action = machine.decodingFailed(error) {
            perform(action, context: context)
        } else {
            context.close(promise: nil)
        }
    }

    /// The connection closed or its HTTP handlers were replaced (a tunnel): drops what it kept.
    func handlerRemoved(context: ChannelHandlerContext) {
        scope.close()
    }

    private func perform(_ action: ExchangeStateMachine.PartAction, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .sendContinue(let version):
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .continue))), promise: nil)
        case .respond(let head, let body, let arrival):
            var request = IncomingRequest(head: head, body: body, tunnelOrigin: tunnelOrigin, arrival: arrival)
            request.adminEnabled = configuration.adminEnabled
            let sink = ResponseSink(handler: self, context: context, scope: scope, isHead: head.method == .HEAD,
                                    delayObserver: configuration.delayObserver)
            responder.respond(to: request, sink: sink)
        case .refuse(let status, let reason):
            writeRefusal(context: context, status: status, reason: reason)
        case .planTunnel(let host, let port):
            openTunnel(context: context, host: host, port: port)
        }
    }

    /// Takes up the parts that waited for a response to end, until the next request is under way;
    /// then passes on a held read once nothing waits.
    private func resumeWaiting(context: ChannelHandlerContext) {
        guard !isResuming else { return }
        isResuming = true
        while let action = machine.takeWaitingPart(now: .now()) {
            perform(action, context: context)
        }
        isResuming = false
        if context.channel.isActive, machine.releaseHeldRead() { context.read() }
    }

    // MARK: writing, called through ResponseSink on the event loop

    func writeHead(_ head: HTTPResponseHead, context: ChannelHandlerContext) {
        var head = head
        if machine.closesAfterResponse { head.headers.replaceOrAdd(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    func writeBody(_ buffer: ByteBuffer, context: ChannelHandlerContext, flush: Bool = false,
                   promise: EventLoopPromise<Void>? = nil) {
        if flush {
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: promise)
        } else {
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: promise)
        }
    }

    func writeEnd(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        switch machine.responseEnded() {
        case .keepAlive:
            context.write(wrapOutboundOut(.end(nil)), promise: promise)
            scope.deferredFlush.flush(context.channel)
            resumeWaiting(context: context)
        case .close:
            let closing = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            closing.cascade(to: promise)
            let channel = context.channel
            closing.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// Answers with a plain-text reason and closes the connection.
    func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, reason: String, code: String = "bad-request") {
        machine.refused()
        writeRefusal(context: context, status: status, reason: reason, code: code)
    }

    private func writeRefusal(context: ChannelHandlerContext, status: HTTPResponseStatus, reason: String,
                              code: String = "bad-request") {
        var body = context.channel.allocator.buffer(capacity: reason.utf8.count + 1)
        body.writeString(reason + "\n")
        let headers = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.readableBytes)),
                                   ("Connection", "close"), ("Tapedeck-Error", code)])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        writeEnd(context: context, promise: nil)
    }

    /// The tunnel was answered: the connection belongs to it from now on.
    func tunnelOpened() {
        machine.tunnelOpened()
    }
}
