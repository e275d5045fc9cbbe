import NIOCore
import NIOHTTP1
import NIOSSL
import TapedeckCore
import TapedeckNIO

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
    /// Where complete requests go: the admin API or the mode.
    let front: any Responder
    let configuration: ServerConfiguration
    private let tunnelOrigin: String?
    /// What lives as long as this connection (the recording proxy's upstream connection).
    private let scope: ConnectionScope
    /// Whether the scope is this handler's own, or shared by the streams of an HTTP/2 connection.
    private let ownsScope: Bool
    /// The body of the request handed on before it ended, while it arrives.
    private var streamedBody: RequestBodyStream?
    /// The body of the large upload handed on before it ended, while it arrives into ``collector``'s spool.
    private var arrivingUpload: ArrivingUpload?
    /// The body of the request being received whole.
    private var collector: RequestBodyCollector
    /// Closes the connection when a request's head is not whole in time (HTTP/1.1 only: an HTTP/2
    /// stream's head arrives whole in its HEADERS frames).
    private var headDeadline: Scheduled<Void>?
    /// Closes the connection (or stream) when a client does not take what it is sent in time.
    private var sendDeadline: Scheduled<Void>?
    /// Refuses a request whose body stops arriving; armed once, it looks at ``lastBodyRead`` when due.
    private var bodyDeadline: Scheduled<Void>?
    private var lastBodyRead = NIODeadline.uptimeNanoseconds(0)

    /// - Parameter scope: the scope of the HTTP/2 connection this stream is part of; nil gives the
    ///   handler a scope of its own (an HTTP/1.1 connection).
    init(front: any Responder, configuration: ServerConfiguration, tunnelOrigin: String?, scope: ConnectionScope? = nil) {
        self.front = front
        self.configuration = configuration
        self.tunnelOrigin = tunnelOrigin
        self.scope = scope ?? ConnectionScope()
        ownsScope = scope == nil
        // Inside a tunnel the client already authenticated on its CONNECT.
        let authentication = tunnelOrigin == nil ? configuration.proxyCredentials.map {
            ProxyAuthentication(credentials: $0, adminEnabled: configuration.adminEnabled)
        } : nil
        machine = ExchangeStateMachine(maxBodySize: configuration.maxBodySize, isTunnel: tunnelOrigin != nil,
                                       proxyAuthentication: authentication)
        collector = RequestBodyCollector(threshold: configuration.uploadMemoryLimit, root: configuration.uploadFolder)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armHeadDeadline(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        armHeadDeadline(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head = part {
            headDeadline?.cancel()
            headDeadline = nil
        }
        let now = context.eventLoop.now
        perform(machine.received(part, now: now), context: context)
        if machine.receivesBody {
            lastBodyRead = now
            armBodyDeadline(context: context)
        }
    }

    /// Gives the next request's head ``ServerConfiguration/headerTimeout`` to arrive whole.
    private func armHeadDeadline(context: ChannelHandlerContext) {
        guard ownsScope, headDeadline == nil else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        headDeadline = context.eventLoop.scheduleTask(in: configuration.headerTimeout) {
            let (handler, context) = bound.value
            handler.headDeadline = nil
            if handler.machine.awaitsHead { handler.closeBetweenAnswers(context: context) }
        }
    }

    /// Gives the body under way ``ServerConfiguration/bodyTimeout`` from its last byte to go on.
    private func armBodyDeadline(context: ChannelHandlerContext) {
        guard bodyDeadline == nil else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        bodyDeadline = context.eventLoop.scheduleTask(deadline: lastBodyRead + configuration.bodyTimeout) {
            let (handler, context) = bound.value
            handler.bodyDeadline = nil
            guard handler.machine.receivesBody else { return }
            if context.eventLoop.now < handler.lastBodyRead + handler.configuration.bodyTimeout {
                handler.armBodyDeadline(context: context)
            } else {
                handler.perform(handler.machine.bodyTimedOut(after: handler.configuration.bodyTimeout), context: context)
            }
        }
    }

    /// While the client takes nothing more, gives it ``ServerConfiguration/sendTimeout`` to start again.
    private func watchSending(context: ChannelHandlerContext) {
        guard !context.channel.isWritable else {
            sendDeadline?.cancel()
            sendDeadline = nil
            return
        }
        guard sendDeadline == nil else { return }
        let channel = context.channel
        sendDeadline = context.eventLoop.scheduleTask(in: configuration.sendTimeout) {
            if !channel.isWritable { channel.close(promise: nil) }
        }
    }

    private func cancelDeadlines() {
        headDeadline?.cancel()
        headDeadline = nil
        sendDeadline?.cancel()
        sendDeadline = nil
        bodyDeadline?.cancel()
        bodyDeadline = nil
    }

    func read(context: ChannelHandlerContext) {
        if machine.readRequested() { context.read() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is ChannelShouldQuiesceEvent:
            if machine.quiesce() { closeBetweenAnswers(context: context) }
        case is IdleStateHandler.IdleStateEvent:
            if machine.idleTimeoutFired() { closeBetweenAnswers(context: context) }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Closes a connection with no answer under way. The answer that ended last may still wait for
    /// the round's deferred flush (``DeferredFlush``): flushed first, or the close would drop its
    /// last bytes (a server stopping just as an answer ended cut it short).
    private func closeBetweenAnswers(context: ChannelHandlerContext) {
        context.flush()
        context.close(promise: nil)
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

    /// The connection closed: a request body still arriving fails, and nothing more is written.
    func channelInactive(context: ChannelHandlerContext) {
        if machine.connectionClosed() { cutStreamedBody() }
        collector.discard()
        cancelDeadlines()
        context.fireChannelInactive()
    }

    /// A client that stops reading its answers is not read from until it takes them again.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if machine.writabilityChanged(isWritable: context.channel.isWritable) { context.read() }
        watchSending(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// The connection closed or its HTTP handlers were replaced (a tunnel): drops what it kept.
    func handlerRemoved(context: ChannelHandlerContext) {
        if ownsScope { scope.close() }
        collector.discard()
        cancelDeadlines()
    }

    private func perform(_ action: ExchangeStateMachine.PartAction, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .sendContinue(let version):
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .continue))), promise: nil)
        case .collect(let part):
            let wasSpooling = collector.spool != nil
            do {
                try collector.append(part)
            } catch {
                collector.discard()
                return perform(machine.bodyNotKept("the request body could not be spooled: \(error)"), context: context)
            }
            if !wasSpooling, let spool = collector.spool { handOnIfForwarded(spooledTo: spool, context: context) }
        case .respond(let head, let arrival):
            let body: RequestBodyCollector.Collected
            do {
                body = try collector.finish()
            } catch {
                return perform(machine.bodyNotKept("the request body could not be spooled: \(error)"), context: context)
            }
            respond(head, body: body, arrival: arrival, context: context)
        case .respondStreaming(let head, let arrival):
            streamedBody = RequestBodyStream(eventLoop: context.eventLoop)
            respond(head, body: .inMemory(ByteBuffer()), streaming: streamedBody, arrival: arrival, context: context)
        case .requestBody(let part):
            streamedBody?.append(part)
            if let arrivingUpload { takeArriving(part, into: arrivingUpload, context: context) }
        case .requestEnd:
            streamedBody?.finish()
            streamedBody = nil
            if let arrivingUpload { endArriving(arrivingUpload) }
        case .abandonRequest:
            // An HTTP/2 stream closed before its end is reset.
            cutStreamedBody()
            context.close(promise: nil)
        case .refuseCall(let reason):
            refuseCall(reason, context: context)
        case .refuse(let status, let reason):
            collector.discard()
            writeLocalAnswer(Refusal(status, reason), context: context)
        case .challenge(let toAdmin):
            writeLocalAnswer(ProxyAuthentication.challenge(toAdmin: toAdmin), context: context)
        case .planTunnel(let host, let port):
            openTunnel(context: context, host: host, port: port)
        }
    }

    /// The request body still arriving will not end: whoever reads it gets an error.
    private func cutStreamedBody() {
        streamedBody?.fail()
        streamedBody = nil
        arrivingUpload?.fail()
        arrivingUpload = nil
        collector.discard()
    }

    /// A body that just outgrew memory is handed on as it arrives when the front door forwards its
    /// request whatever the body (``Responder/forwardsAsItArrives(_:)``): the upstream then takes
    /// it while the client sends it. Otherwise it is answered whole once it ended.
    private func handOnIfForwarded(spooledTo spool: UploadSpool, context: ChannelHandlerContext) {
        guard let (head, arrival) = machine.requestBeingReceived,
              var request = try? makeRequest(head, body: ByteBuffer(), arrival: arrival, context: context),
              front.forwardsAsItArrives(request) else { return }
        machine.handOnUpload()
        let upload = ArrivingUpload(file: spool.temporary, eventLoop: context.eventLoop)
        upload.grew(to: spool.byteCount)
        arrivingUpload = upload
        request.arrivingBody = upload
        front.respond(to: request, sink: makeSink(for: request, context: context))
    }

    /// Spools the next piece of an upload handed on, and tells its reader.
    private func takeArriving(_ part: ByteBuffer, into upload: ArrivingUpload, context: ChannelHandlerContext) {
        do {
            try collector.append(part)
            upload.grew(to: collector.spool?.byteCount ?? 0)
        } catch {
            perform(.abandonRequest(reason: "the request body could not be spooled: \(error)"), context: context)
        }
    }

    /// The upload handed on ended: its spool becomes the whole body.
    private func endArriving(_ upload: ArrivingUpload) {
        arrivingUpload = nil
        if case .spooled(let whole)? = try? collector.finish() { upload.finish(whole) } else { upload.fail() }
    }

    /// Hands a request to the front door with the sink its answer goes through.
    private func respond(_ head: HTTPRequestHead, body: RequestBodyCollector.Collected, streaming: RequestBodyStream? = nil,
                         arrival: NIODeadline, context: ChannelHandlerContext) {
        var request: IncomingRequest
        do {
            switch body {
            case .inMemory(let bytes):
                request = try makeRequest(head, body: bytes, arrival: arrival, context: context)
            case .spooled(let spooled):
                request = try makeRequest(head, body: ByteBuffer(), arrival: arrival, context: context)
                request.spooledBody = spooled
            }
        } catch {
            streamedBody = nil
            return refuse(Refusal(.badRequest, "malformed request: \(error)"), context: context)
        }
        request.bodyStream = streaming
        front.respond(to: request, sink: makeSink(for: request, context: context))
    }

    /// The request as the front door gets it; throws when its head is malformed.
    private func makeRequest(_ head: HTTPRequestHead, body: ByteBuffer, arrival: NIODeadline,
                             context: ChannelHandlerContext) throws -> IncomingRequest {
        var request = try IncomingRequest(head, body: body, tunnelOrigin: tunnelOrigin, arrival: arrival)
        request.adminEnabled = configuration.adminEnabled
        if request.isAdmin { request.serverPort = context.channel.localAddress?.port }
        return request
    }

    /// The sink the answer under way goes through.
    private func makeSink(for request: IncomingRequest, context: ChannelHandlerContext) -> ResponseSink {
        ResponseSink(handler: self, context: context, scope: scope, answer: machine.answer, for: request, configuration: configuration)
    }

    /// Ends a gRPC call whose request grew past the limit as a gRPC server would: RESOURCE_EXHAUSTED
    /// in its trailers (after a head of its own unless the answer under way wrote one); the machine
    /// closes the stream once they are written (closed first, the client would hear CANCELLED). The
    /// request body fails for whoever reads it, and what the mode writes afterwards is dropped.
    private func refuseCall(_ reason: String, context: ChannelHandlerContext) {
        cutStreamedBody()
        let answer = machine.answer
        writeHead(HTTPResponseHead(GRPCErrorAnswer.tooLarge), answer: answer, context: context)
        writeEnd(answer: answer, context: context, trailers: HTTPHeaders(GRPCErrorAnswer.tooLargeTrailers(reason)), promise: nil)
    }

    /// Takes up the parts that waited for a response to end, until the next request is under way;
    /// then passes on a held read once nothing waits.
    private func resumeWaiting(context: ChannelHandlerContext) {
        guard !isResuming else { return }
        isResuming = true
        while let action = machine.takeWaitingPart(now: context.eventLoop.now) {
            perform(action, context: context)
        }
        isResuming = false
        if context.channel.isActive, machine.releaseHeldRead() { context.read() }
    }

    // MARK: writing, called through ResponseSink on the event loop

    /// Writes the head of answer `answer`, unless that answer already ended or wrote its head
    /// (each request gets exactly one answer), framed as the state machine says.
    ///
    /// The head must be legal for the wire, as every head is when made: from swift-http-types'
    /// values (whose fields cannot hold CR, LF or NUL), from a ``PreparedResponse`` (legal since
    /// it was prepared), or, for what comes from outside (an upstream's answer, a cassette's
    /// headers), through `HTTPHeaders.legal`. No header can then split an answer.
    func writeHead(_ head: HTTPResponseHead, answer: Int, context: ChannelHandlerContext) {
        guard let framing = machine.headWillBeWritten(for: answer, hasLength: head.headers.contains(name: "Content-Length")) else { return }
        var head = head
        // SwiftNIO's encoder frames an HTTP/1.0 head's body without chunks.
        if framing == .untilClose { head.version = .http1_0 }
        if machine.closesAfterResponse { head.headers.replaceOrAdd(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    /// Writes a piece of answer `answer`'s body; dropped (failing the promise) once that answer ended.
    func writeBody(_ buffer: ByteBuffer, answer: Int, context: ChannelHandlerContext, flush: Bool = false,
                   promise: EventLoopPromise<Void>? = nil) {
        guard machine.accepts(answer) else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        if flush {
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: promise)
        } else {
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: promise)
        }
    }

    /// Ends answer `answer`, then keeps the connection for the next request or closes it.
    func writeEnd(answer: Int, context: ChannelHandlerContext, trailers: HTTPHeaders? = nil, promise: EventLoopPromise<Void>?) {
        guard machine.accepts(answer) else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch machine.responseEnded() {
        case .keepAlive:
            context.write(wrapOutboundOut(.end(trailers)), promise: promise)
            if machine.isHTTP2Stream {
                // SwiftNIO's HTTP/2 handler holds its streams' flushes until the connection's read
                // ends and sends them in one write; a flush deferred past that read (below) would
                // cost one write per stream.
                context.flush()
            } else {
                scope.deferredFlush.flush(context.channel)
            }
            resumeWaiting(context: context)
            if machine.awaitsHead { armHeadDeadline(context: context) }
        case .close:
            let closing = context.writeAndFlush(wrapOutboundOut(.end(trailers)))
            closing.cascade(to: promise)
            let channel = context.channel
            let resetsStream = machine.isHTTP2Stream
            closing.whenComplete { _ in
                if resetsStream {
                    // An HTTP/2 stream closes here only when it was answered before its request ended
                    // (a refusal, a call over the limit). Closed plainly, SwiftNIO would reset it with
                    // CANCEL, which a client may act on before the answer it already has; NO_ERROR after
                    // the complete answer asks it to stop sending without error (RFC 9113, section 8.1).
                    // Only once the end has left: swift-nio-http2 holds DATA frames for flow control
                    // until the connection's flush, and a reset written earlier would drop them.
                    channel.pipeline.resetHTTP2Stream(.noError)
                }
                channel.close(promise: nil)
            }
        }
    }

    /// Refuses and closes the connection (a tunnel that cannot be opened, a head swift-http-types refuses).
    func refuse(_ refusal: Refusal, context: ChannelHandlerContext) {
        machine.refused()
        writeLocalAnswer(refusal, context: context)
    }

    /// Writes an answer of the connection's own (a refusal, a credentials challenge) as the answer under way.
    private func writeLocalAnswer(_ refusal: Refusal, context: ChannelHandlerContext) {
        let answer = machine.answer
        writeHead(HTTPResponseHead(refusal.response), answer: answer, context: context)
        writeBody(refusal.body, answer: answer, context: context)
        writeEnd(answer: answer, context: context, promise: nil)
    }

    /// The tunnel was answered: the connection belongs to it from now on.
    func tunnelOpened() {
        machine.tunnelOpened()
    }
}
