import NIOCore

/// What lives as long as one client connection: the recording proxy keeps the upstream
/// connections of that client here, so the next request on the same client connection reuses one.
/// An HTTP/2 client connection's streams share one scope, and so one upstream HTTP/2 connection.
/// Used on the connection's event loop only.
final class ConnectionScope {
    /// Flushes this connection's writes, and its upstream connection's, at the end of the round.
    let deferredFlush = DeferredFlush()
    /// The HTTP/1.1 connections this client connection's requests went upstream on, busy or idle:
    /// one at a time for an HTTP/1.1 client, up to one per stream in flight for an HTTP/2 client
    /// whose upstream speaks only HTTP/1.1.
    private var upstreams: [UpstreamConnection] = []
    /// The HTTP/2 connections this client connection's streams are forwarded on, by origin.
    private var http2Upstreams: [UpstreamOrigin: HTTP2Upstream] = [:]

    private enum HTTP2Upstream {
        case opening(EventLoopFuture<UpstreamHTTP2Connection>)
        case open(UpstreamHTTP2Connection)
    }
    /// HTTP/2 connections no longer given new streams (``retire(_:)``), closed with the scope
    /// unless the upstream closes them first.
    private var retiredHTTP2Upstreams: [UpstreamHTTP2Connection] = []

    /// Set once the client connection closed: nothing is kept any more.
    private var isClosed = false

    /// A kept connection to `origin` that is open and carries no exchange.
    func idleUpstream(for origin: UpstreamOrigin) -> UpstreamConnection? {
        upstreams.first { $0.origin == origin && $0.isIdle }
    }

    /// Keeps `connection` for this client's next requests, and closes those kept before that
    /// carry no exchange (a new connection was opened because none of them would do); those still
    /// carrying one, another stream's, go on. A closed scope closes `connection` at once and
    /// returns false: the client left while the connection was being opened.
    func keep(_ connection: UpstreamConnection) -> Bool {
        if isClosed {
            connection.close()
            return false
        }
        upstreams.removeAll { kept in
            guard kept !== connection, !kept.isBusy else { return false }
            kept.close()
            return true
        }
        upstreams.append(connection)
        return true
    }

    /// The most idle HTTP/1.1 connections kept to one origin. An HTTP/2 client's burst of streams
    /// to an upstream without HTTP/2 opens one connection per stream in flight (up to the 100
    /// streams it may have open); once the burst is answered, as many as a browser keeps to a host
    /// stay for the next, and the others close.
    static let maxIdleUpstreamsPerOrigin = 6

    /// `connection` finished its exchange and may carry another: it stays kept unless the origin
    /// has ``maxIdleUpstreamsPerOrigin`` idle connections besides, then it closes.
    func exchangeEnded(on connection: UpstreamConnection) {
        let idleBesides = upstreams.count(where: { $0 !== connection && $0.origin == connection.origin && $0.isIdle })
        guard idleBesides >= Self.maxIdleUpstreamsPerOrigin else { return }
        upstreams.removeAll { $0 === connection }
        connection.close()
    }

    /// The HTTP/2 connection to `origin` the streams share: the one kept while it is being opened
    /// or open (`isKept`: it may have been open a while, and the upstream may be closing it),
    /// otherwise a new one from `open`, kept in its place.
    func http2Upstream(for origin: UpstreamOrigin, on eventLoop: any EventLoop,
                       open: () -> EventLoopFuture<UpstreamHTTP2Connection>)
        -> (connection: EventLoopFuture<UpstreamHTTP2Connection>, isKept: Bool) {
        switch http2Upstreams[origin] {
        case .opening(let connection):
            return (connection, false)
        case .open(let connection) where connection.isOpen:
            return (eventLoop.assumeIsolated().makeSucceededFuture(connection), true)
        case .open, nil:
            break
        }
        let connection = open()
        guard !isClosed else {
            connection.whenSuccess { $0.close() }
            return (connection, false)
        }
        http2Upstreams[origin] = .opening(connection)
        connection.assumeIsolated().whenComplete { [self] result in
            guard !isClosed else {
                if case .success(let late) = result { late.close() }
                return
            }
            http2Upstreams[origin] = try? .open(result.get())
        }
        return (connection, false)
    }

    /// Gives `connection` no more streams: the next stream to its origin opens a new one. Its
    /// streams under way go on; it closes when the upstream closes it, or with the scope.
    func retire(_ connection: UpstreamHTTP2Connection) {
        guard case .open(let kept) = http2Upstreams[connection.origin], kept === connection else { return }
        http2Upstreams[connection.origin] = nil
        retiredHTTP2Upstreams.removeAll { !$0.isOpen }
        retiredHTTP2Upstreams.append(connection)
    }

    /// Closes what the client connection kept; called when it closes.
    func close() {
        isClosed = true
        for upstream in upstreams { upstream.clientLeft() }
        upstreams = []
        for case .open(let connection) in http2Upstreams.values { connection.close() }
        http2Upstreams = [:]
        for connection in retiredHTTP2Upstreams { connection.close() }
        retiredHTTP2Upstreams = []
    }
}

/// Closes the scope an HTTP/2 connection's streams share when the connection closes.
final class ConnectionScopeCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    let scope: ConnectionScope

    init(scope: ConnectionScope) {
        self.scope = scope
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scope.close()
    }
}
