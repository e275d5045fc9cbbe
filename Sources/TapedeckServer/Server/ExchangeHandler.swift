import NIOCore
import NIOHTTP1
import NIOSSL
import TapedeckCore

/// Collects one HTTP request at a time, enforces the body limit and the idle timeout, hands
/// the request to the responder, answers requests that do not parse, and turns `CONNECT` into
/// a tunnel.
///
/// A client may pipeline requests: what arrives while a response is under way waits here and
/// is taken up when the response ends, and `read()` is held meanwhile, so a client cannot make
/// the server buffer more than one read ahead (``ConnectionReadHandler``). SwiftNIO's pipelining
/// handler would do the same as one more handler every message passes.
final class ExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Where the connection is in its request/response cycle.
    private enum State {
        /// Waiting for a request head.
        case idle
        /// Reading a request body.
        case receiving(HTTPRequestHead, ByteBuffer, NIODeadline)
        /// Reading the rest of a `CONNECT` request.
        case connecting(host: String, port: Int, HTTPRequestHead)
        /// A response is being produced.
        case responding(keepAlive: Bool)
        /// The request was refused; the connection closes once the answer is written.
        case closing
    }

    private var state = State.idle
    /// Request parts that arrived while a response was under way, in order.
    private var waiting = CircularBuffer<HTTPServerRequestPart>()
    /// Whether a read was asked for while a response was under way; it is passed on when the response ends.
    private var readHeld = false
    /// Whether waiting parts are being taken up, so that a response ending meanwhile does not start again.
    private var isResuming = false
    private let responder: any Responder
    private let configuration: ServerConfiguration
    private let tunnelOrigin: String?
    /// What lives as long as this connection (the recording proxy's upstream connection).
    private let scope = ConnectionScope()

    init(responder: any Responder, configuration: ServerConfiguration, tunnelOrigin: String?) {
        self.responder = responder
        self.configuration = configuration
        self.tunnelOrigin = tunnelOrigin
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if isResponding || !waiting.isEmpty {
            waiting.append(part)
        } else {
            handle(part, context: context)
        }
    }

    func read(context: ChannelHandlerContext) {
        if isResponding {
            readHeld = true
        } else {
            context.read()
        }
    }

    private var isResponding: Bool {
        if case .responding = state { return true }
        return false
    }

    /// Takes up the parts that waited for a response to end, until the next request is under way;
    /// then passes on a held read once nothing waits.
    private func resumeWaiting(context: ChannelHandlerContext) {
        guard !isResuming else { return }
        isResuming = true
        while !isResponding, let part = waiting.popFirst() {
            handle(part, context: context)
        }
        isResuming = false
        if readHeld, !isResponding, waiting.isEmpty, context.channel.isActive {
            readHeld = false
            context.read()
        }
    }

    private func handle(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch (part, state) {
        case (.head(let head), .idle):
            if head.method == .CONNECT {
                guard tunnelOrigin == nil, let (host, port) = Self.splitAuthority(head.uri) else {
                    refuse(context: context, status: .badRequest, reason: "CONNECT needs host:port")
                    return
                }
                state = .connecting(host: host, port: port, head)
                return
            }
            if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > configuration.maxBodySize {
                refuse(context: context, status: .payloadTooLarge,
                       reason: "the request body of \(length) bytes is over the limit of \(configuration.maxBodySize) bytes (--max-body)")
                return
            }
            if head.headers[canonicalForm: "Expect"].contains(where: { $0.caseInsensitiveEquals("100-continue") }) {
                // The client waits for this before sending its body; a request refused early (413 above) never gets it.
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
            state = .receiving(head, context.channel.allocator.buffer(capacity: 0), .now())
        case (.body(var chunk), .receiving(let head, var body, let arrival)):
            state = .idle  // drop the reference so the buffer can grow in place
            if body.readableBytes + chunk.readableBytes > configuration.maxBodySize {
                refuse(context: context, status: .payloadTooLarge,
                       reason: "the request body is over the limit of \(configuration.maxBodySize) bytes (--max-body)")
                return
            }
            if body.readableBytes == 0 { body = chunk } else { body.writeBuffer(&chunk) }
            state = .receiving(head, body, arrival)
        case (.end, .receiving(let head, let body, let arrival)):
            state = .responding(keepAlive: head.isKeepAlive)
            var request = IncomingRequest(head: head, body: body, tunnelOrigin: tunnelOrigin, arrival: arrival)
            request.adminEnabled = configuration.adminEnabled
            let sink = ResponseSink(handler: self, context: context, scope: scope, isHead: head.method == .HEAD,
                                    delayObserver: configuration.delayObserver)
            responder.respond(to: request, sink: sink)
        case (.end, .connecting(let host, let port, _)):
            openTunnel(context: context, host: host, port: port)
        case (.body, .connecting):
            break
        case (_, .closing), (.body, .idle), (.end, .idle):
            break
        case (.head, _), (.body, _), (.end, _):
            refuse(context: context, status: .badRequest, reason: "unexpected request part")
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            switch state {
            case .responding, .connecting: break
            default: context.close(promise: nil)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A request that does not parse gets 431 when its headers are too large, 400 otherwise, and
    /// the connection closes (the decoder cannot go on); the server itself stays up. Other
    /// errors, and any error while a response is under way, close the connection.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch (error as? HTTPParserError, state) {
        case (_, .responding), (_, .closing), (nil, _):
            context.close(promise: nil)
        case (.headerOverflow?, _):
            refuse(context: context, status: .requestHeaderFieldsTooLarge, reason: "the request headers are over the size limit")
        case (let parserError?, _):
            refuse(context: context, status: .badRequest, reason: "malformed request: \(parserError)")
        }
    }

    /// The connection closed or its HTTP handlers were replaced (a tunnel): drops what it kept.
    func handlerRemoved(context: ChannelHandlerContext) {
        scope.close()
    }

    // MARK: writing, called through ResponseSink on the event loop

    func writeHead(_ head: HTTPResponseHead, context: ChannelHandlerContext) {
        var head = head
        if case .responding(keepAlive: false) = state { head.headers.replaceOrAdd(name: "Connection", value: "close") }
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
        let keepAlive: Bool
        switch state {
        case .responding(let alive): keepAlive = alive
        case .closing: keepAlive = false
        default: keepAlive = true
        }
        if case .responding = state { state = .idle }
        if keepAlive {
            context.write(wrapOutboundOut(.end(nil)), promise: promise)
            scope.deferredFlush.flush(context.channel)
            resumeWaiting(context: context)
        } else {
            let closing = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            closing.cascade(to: promise)
            let channel = context.channel
            closing.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    // MARK: refusals and tunnels

    private func refuse(context: ChannelHandlerContext, status: HTTPResponseStatus, reason: String, code: String = "bad-request") {
        state = .closing
        var body = context.channel.allocator.buffer(capacity: reason.utf8.count + 1)
        body.writeString(reason + "\n")
        let headers = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.readableBytes)),
                                   ("Connection", "close"), ("Tapedeck-Error", code)])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        writeEnd(context: context, promise: nil)
    }

    private func openTunnel(context: ChannelHandlerContext, host: String, port: Int) {
        switch responder.connectPlan(host: host, port: port) {
        case .refuse(let status, let reason):
            refuse(context: context, status: HTTPResponseStatus(statusCode: status), reason: reason)
        case .relay:
            state = .responding(keepAlive: true)
            relay(context: context, host: host, port: port, tls: nil) { handler, context, _ in
                handler.writeTunnelEstablished(context: context)
            }
        case .intercept(let sslContext):
            state = .responding(keepAlive: true)
            let written = writeTunnelEstablished(context: context)
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let configuration = configuration
            let responder = responder
            written.whenSuccess {
                let (handler, context) = bound.value
                do {
                    try ServerPipeline.switchToTunnel(context: context, handler: handler, sslContext: sslContext,
                                                      host: host, port: port, responder: responder, configuration: configuration)
                } catch {
                    context.close(promise: nil)
                }
            }
        }
    }

    /// Connects to an upstream, sends the bytes given, and relays the connection to it (WebSocket upgrades).
    func openUpstreamTunnel(context: ChannelHandlerContext, host: String, port: Int, tls: NIOSSLContext?, initialBytes: ByteBuffer) {
        relay(context: context, host: host, port: port, tls: tls) { _, _, upstream in
            upstream.writeAndFlush(initialBytes)
        }
    }

    /// Connects to `host:port` and, once `prepare` (run with the new upstream connection) is done,
    /// relays this connection to it byte for byte; answers 502 when connecting fails.
    private func relay(context: ChannelHandlerContext, host: String, port: Int, tls: NIOSSLContext?,
                       prepare: @escaping (ExchangeHandler, ChannelHandlerContext, any Channel) -> EventLoopFuture<Void>) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        UpstreamSocket.connect(host: host, port: port, tls: tls, on: context.eventLoop).assumeIsolated().whenComplete { result in
            let (handler, context) = bound.value
            switch result {
            case .failure(let error):
                handler.refuse(context: context, status: .badGateway, reason: "cannot reach \(host):\(port): \(error)",
                               code: "upstream-unreachable")
            case .success(let upstream):
                prepare(handler, context, upstream).assumeIsolated().whenSuccess {
                    do {
                        try ServerPipeline.switchToRelay(context: context, handler: handler, upstream: upstream)
                    } catch {
                        upstream.close(promise: nil)
                        context.close(promise: nil)
                    }
                }
            }
        }
    }

    /// Answers a CONNECT with 200; completes when the answer is on the wire.
    private func writeTunnelEstablished(context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: HTTPHeaders([("Content-Length", "0")]))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        return context.writeAndFlush(wrapOutboundOut(.end(nil)))
    }

    /// Splits `host:port` (or `[v6]:port`) of a CONNECT request.
    static func splitAuthority(_ authority: String) -> (String, Int)? {
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        var host = String(authority[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
