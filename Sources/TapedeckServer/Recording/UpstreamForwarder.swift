import NIOCore
import NIOHTTP1
import NIOSSL
import TapedeckCore

/// Forwards requests to the live service over one upstream connection per client connection,
/// opened on the client's event loop and kept for its next request (a client's requests come one
/// at a time). Redirects are passed back, never followed, and bodies pass undecoded.
struct UpstreamForwarder: Sendable {
    /// TLS for https upstreams, with the chosen trust.
    let tls: NIOSSLContext
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
        guard let host = target.host, let scheme = target.scheme else {
            exchange.failed(.unreachable(SettingsError(message: "no upstream host in \(cassetteRequest.url)")))
            return
        }
        let origin = UpstreamOrigin(scheme: scheme, host: host, port: target.port ?? RequestTarget.defaultPort(scheme: scheme))
        let head = Self.upstreamHead(request, as: cassetteRequest, target: target, origin: origin)
        let body = request.body
        let scope = sink.scope
        let (tls, connectTimeout, loop, dialer) = (tls, connectTimeout, sink.eventLoop, dialer)
        let connectAndSend = {
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

    /// The request as the upstream gets it: origin-form, without hop-by-hop and control headers,
    /// with the upstream's Host and the body's exact length.
    private static func upstreamHead(_ request: IncomingRequest, as cassetteRequest: CassetteRequest, target: RequestTarget,
                                     origin: UpstreamOrigin) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: cassetteRequest.headers["Host"]
            ?? RequestTarget.authority(scheme: origin.scheme, host: origin.host, port: origin.port))
        for (name, value) in request.head.headers where !HeaderList.isHopByHop(name) && !ControlHeaders.isControl(name) {
            if name.caseInsensitiveEquals("Host") || name.caseInsensitiveEquals("Content-Length") || name.caseInsensitiveEquals("Expect") {
                continue
            }
            headers.add(name: name, value: value)
        }
        // The proxy passes trailers on to a client that takes them, so it asks for them.
        if request.head.takesTrailers { headers.add(name: "TE", value: "trailers") }
        let announcesBody = request.head.headers.contains(name: "Content-Length") || request.head.headers.contains(name: "Transfer-Encoding")
        if request.body.readableBytes > 0 || announcesBody {
            headers.add(name: "Content-Length", value: String(request.body.readableBytes))
        }
        let uri = target.path + (target.query.map { "?" + $0 } ?? "")
        return HTTPRequestHead(version: .http1_1, method: request.head.method, uri: uri, headers: headers)
    }
}
