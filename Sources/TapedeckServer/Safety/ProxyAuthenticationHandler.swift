import NIOCore
import NIOHTTP1

/// Requires `Proxy-Authorization: Basic` on every request of a connection (`--proxy-auth`):
/// answers 407 with `Proxy-Authenticate: Basic realm="tapedeck"` otherwise, and removes the
/// header from requests it lets through, so it is never forwarded nor recorded. A refused
/// request is answered at its end, or at once (then closing) when it waits for `100 Continue`.
///
/// A request for the server's own admin paths (`/__tapedeck/…`, when the admin API is on) may
/// send the same credentials as `Authorization: Basic` instead, and is refused with 401 and
/// `WWW-Authenticate`: a browser sends `Proxy-Authorization` only to a proxy it is set to use,
/// never to a page it opens, so this is how the inspector page opens under `--proxy-auth`.
final class ProxyAuthenticationHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Whether the request being read is passed on or refused.
    private enum State {
        /// Requests go through to the exchange handler.
        case passing
        /// The current request is refused; its body is dropped until its end.
        case refusing(keepAlive: Bool, toAdmin: Bool)
    }

    private var state = State.passing
    private let credentials: ProxyCredentials
    /// Whether `/__tapedeck/…` is the admin API (not `--no-admin`), which takes `Authorization` too.
    private let adminEnabled: Bool

    init(credentials: ProxyCredentials, adminEnabled: Bool) {
        self.credentials = credentials
        self.adminEnabled = adminEnabled
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (part, state) {
        case (.head(var head), .passing):
            let toAdmin = AdminEndpoints.addresses(head.uri, enabled: adminEnabled)
            guard credentials.accepts(head.headers.first(name: "Proxy-Authorization"))
                || (toAdmin && credentials.accepts(head.headers.first(name: "Authorization"))) else {
                if head.headers[canonicalForm: "Expect"].contains(where: { $0.caseInsensitiveEquals("100-continue") }) {
                    // The client waits before sending its body: answer now, and close, since the
                    // body it may still send would otherwise be read as the next request.
                    state = .refusing(keepAlive: false, toAdmin: toAdmin)
                    writeRefusal(context: context, keepAlive: false, toAdmin: toAdmin)
                    return
                }
                state = .refusing(keepAlive: head.isKeepAlive, toAdmin: toAdmin)
                return
            }
            head.headers.remove(name: "Proxy-Authorization")
            if toAdmin { head.headers.remove(name: "Authorization") }
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case (.end, .refusing(let keepAlive, let toAdmin)):
            state = .passing
            writeRefusal(context: context, keepAlive: keepAlive, toAdmin: toAdmin)
        case (_, .refusing):
            break
        case (_, .passing):
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
    }

    /// 407 for a request to pass on; for an admin path, 401, which a browser opening the inspector
    /// page answers with its login prompt.
    private func writeRefusal(context: ChannelHandlerContext, keepAlive: Bool, toAdmin: Bool) {
        let reason = toAdmin
            ? "authentication required: send Authorization: Basic with the --proxy-auth credentials\n"
            : "proxy authentication required: send Proxy-Authorization: Basic (tapedeck was started with --proxy-auth)\n"
        var body = context.channel.allocator.buffer(capacity: reason.utf8.count)
        body.writeString(reason)
        var headers = HTTPHeaders([(toAdmin ? "WWW-Authenticate" : "Proxy-Authenticate", "Basic realm=\"tapedeck\""),
                                   ("Content-Type", "text/plain; charset=utf-8"),
                                   ("Content-Length", String(body.readableBytes)), ("Tapedeck-Error", "proxy-auth-required")])
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: toAdmin ? .unauthorized : .proxyAuthenticationRequired, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
