import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
@_spi(Internals) import TapedeckCore

/// Forwards requests to the live service over upstream connections opened on the client's event
/// loop and kept for its next requests (``ConnectionScope``): one for an HTTP/1.1 client, whose
/// requests come one at a time. Redirects are passed back, never followed, and bodies pass undecoded.
///
/// The upstream leg speaks what the client spoke (SPEC 12): an HTTP/2 client's streams share one
/// HTTP/2 connection to the upstream (ALPN for https, prior knowledge for http), and where the
/// upstream does not take HTTP/2 they go over HTTP/1.1 instead, said once in the log, one
/// connection per stream in flight.
struct UpstreamForwarder: Sendable {
    /// TLS for https upstreams, with the chosen trust.
    let tls: NIOSSLContext
    /// The same, offering ALPN `h2` then `http/1.1`, for HTTP/2 clients' requests.
    let http2TLS: NIOSSLContext
    /// The upstreams found not to speak HTTP/2.
    let http1Only: HTTP1OnlyOrigins
    /// How long the upstream may stay silent before the answer is 504.
    let timeout: TimeAmount
    /// How long connecting may take before the answer is 502.
    let connectTimeout: TimeAmount = .seconds(10)
    /// How connections are opened: sockets, or a test's channels.
    var dialer: UpstreamDialer = .socket

    /// Forwards a request; `finished` is called exactly once, with the exchange when the client
    /// got the whole answer, with the cause when anything failed (the client then got 502/504 or a closed connection).
    /// `target` is `cassetteRequest`'s URL, already split.
    ///
    /// `spooling` says where a large answer's body is kept as it passes; nil keeps it in memory.
    func forward(_ request: IncomingRequest, as cassetteRequest: CassetteRequest, target: RequestTarget, sink: ResponseSink,
                 spooling: LargeBodySpooling? = nil,
                 finished: @escaping @Sendable (Result<FinishedExchange, ExchangeFailure>) -> Void) {
        guard sink.eventLoop.inEventLoop else {
            sink.eventLoop.execute {
                forward(request, as: cassetteRequest, target: target, sink: sink, spooling: spooling, finished: finished)
            }
            return
        }
        let exchange = UpstreamExchange(cassetteRequest: cassetteRequest, sink: sink, timeout: timeout, spooling: spooling,
                                        finished: finished)
        if request.version.major >= 2 {
            // An HTTP/2 client's stream can end (a reset, a cancelled call) while its connection
            // goes on: the exchange then ends at once, closing its upstream stream or connection,
            // so a call without end (a watch) does not stay open upstream. An HTTP/1.1 client
            // leaves by closing its connection, which closes its upstream through the scope.
            sink.clientClosed.assumeIsolated().whenComplete { [weak exchange] _ in exchange?.failed(.clientGone) }
        }
        guard let host = target.host, let scheme = target.scheme else {
            exchange.failed(.unreachable(SettingsError(message: "no upstream host in \(cassetteRequest.url)")))
            return
        }
        let origin = UpstreamOrigin(scheme: scheme, host: host, port: target.port ?? RequestTarget.defaultPort(scheme: scheme))
        let head = Self.upstreamHead(request, as: cassetteRequest, target: target, origin: origin)
        let body = request.bodyStream.map(ForwardedBody.streamed) ?? request.arrivingBody.map(ForwardedBody.arriving)
            ?? request.spooledBody.map(ForwardedBody.spooled) ?? .whole(request.body)
        if request.version.major == 2, !http1Only.contains(origin) {
            return forwardOverHTTP2(head, body: body, to: origin, exchange: exchange, sink: sink)
        }
        forwardOverHTTP1(head, body: body, to: origin, exchange: exchange, sink: sink)
    }

    /// Sends the request on the client connection's kept HTTP/1.1 connection, or a new one.
    private func forwardOverHTTP1(_ head: HTTPRequestHead, body: ForwardedBody, to origin: UpstreamOrigin, exchange: UpstreamExchange,
                                  sink: ResponseSink) {
        let scope = sink.scope
        let (tls, connectTimeout, loop, dialer) = (tls, connectTimeout, sink.eventLoop, dialer)
        let connectAndSend = {
            // A stream its client reset meanwhile (a rapid reset) costs the upstream no connection.
            guard !exchange.isDone else { return }
            UpstreamConnection.connect(to: origin, tls: tls, timeout: connectTimeout, on: loop, dialer: dialer).assumeIsolated().whenComplete { result in
                switch result {
                case .success(let connection):
                    guard scope.keep(connection) else { return exchange.failed(.clientGone) }
                    exchange.send(head, body: body, on: connection)
                case .failure(let error):
                    exchange.failed(.unreachable(error))
                }
            }
        }
        if let idle = scope.idleUpstream(for: origin) {
            exchange.retry = connectAndSend
            exchange.send(head, body: body, on: idle)
        } else {
            connectAndSend()
        }
    }

    /// Sends the request on a new stream of the HTTP/2 connection the client connection's streams
    /// share; over HTTP/1.1 when the upstream turns out not to speak HTTP/2. A kept connection the
    /// upstream is closing (its `GOAWAY`, or an idle close) may refuse the stream or end it before
    /// any answer, and any connection may refuse a stream it will not process: the connection is
    /// retired and the request goes again on a new one, at most `attemptsLeft` more times.
    private func forwardOverHTTP2(_ head: HTTPRequestHead, body: ForwardedBody, to origin: UpstreamOrigin, exchange: UpstreamExchange,
                                  sink: ResponseSink, attemptsLeft: Int = 3) {
        let (http2TLS, connectTimeout, loop, dialer) = (http2TLS, connectTimeout, sink.eventLoop, dialer)
        let scope = sink.scope
        let (connection, isKept) = scope.http2Upstream(for: origin, on: loop) {
            UpstreamHTTP2Connection.connect(to: origin, tls: http2TLS, timeout: connectTimeout, on: loop, dialer: dialer)
        }
        connection.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let connection):
                guard !exchange.isDone else { return }
                let again: (() -> Void)? = attemptsLeft == 0 ? nil : {
                    scope.retire(connection)
                    forwardOverHTTP2(head, body: body, to: origin, exchange: exchange, sink: sink, attemptsLeft: attemptsLeft - 1)
                }
                connection.openStream().assumeIsolated().whenComplete { opened in
                    switch opened {
                    case .success(let stream):
                        exchange.retry = isKept ? again : nil
                        exchange.retryRefused = again
                        exchange.send(head, body: body, on: stream)
                    case .failure(let error):
                        if isKept, let again { again() } else { exchange.failed(.unreachable(error)) }
                    }
                }
            case .failure(is UpstreamRefusedHTTP2):
                http1Only.remember(origin)
                forwardOverHTTP1(head, body: body, to: origin, exchange: exchange, sink: sink)
            case .failure(let error):
                exchange.failed(.unreachable(error))
            }
        }
    }

    /// The request as the upstream gets it: origin-form, without hop-by-hop and control headers,
    /// with the upstream's Host and the body's exact length (none for a body still arriving).
    private static func upstreamHead(_ request: IncomingRequest, as cassetteRequest: CassetteRequest, target: RequestTarget,
                                     origin: UpstreamOrigin) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: cassetteRequest.headers["Host"]
            ?? RequestTarget.authority(scheme: origin.scheme, host: origin.host, port: origin.port))
        let fields = request.head.headerFields
        let hopByHop = HopByHopFields(connection: fields[values: .connection])
        for field in fields where !hopByHop.contains(field.name.rawName) && !ControlHeaders.isControl(field.name.rawName) {
            if field.name == .contentLength || field.name == .expect { continue }
            headers.add(name: field.name.rawName, value: field.value)
        }
        // The proxy passes trailers on to a client that takes them, so it asks for them.
        if request.takesTrailers { headers.add(name: "TE", value: "trailers") }
        let announcesBody = fields.contains(.contentLength) || fields.contains(.transferEncoding)
        if request.arrivingBody != nil {
            // An upload still arriving has the length its client announced, if any (its decoder holds it to that).
            if let length = fields[.contentLength] { headers.add(name: "Content-Length", value: length) }
        } else if request.bodyStream == nil, request.bodySize > 0 || announcesBody {
            // A call still arriving has no length yet: HTTP/2 ends it with the stream, HTTP/1.1 in chunks.
            headers.add(name: "Content-Length", value: String(request.bodySize))
        }
        let uri = target.path + (target.query.map { "?" + $0 } ?? "")
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.head.method.rawValue), uri: uri, headers: headers)
    }
}

/// The upstreams that did not take HTTP/2, remembered for the proxy's life so that their requests
/// go over HTTP/1.1 at once; each is named once in the log.
final class HTTP1OnlyOrigins: Sendable {
    private let origins = Locked<Set<UpstreamOrigin>>([])
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func contains(_ origin: UpstreamOrigin) -> Bool {
        origins.withLock { $0.contains(origin) }
    }

    /// Remembers `origin`, and says so the first time.
    func remember(_ origin: UpstreamOrigin) {
        guard origins.withLock({ $0.insert(origin).inserted }) else { return }
        logger.notice("\(origin.scheme)://\(origin.host):\(origin.port) does not speak HTTP/2: HTTP/2 clients' requests to it go over HTTP/1.1")
    }
}
