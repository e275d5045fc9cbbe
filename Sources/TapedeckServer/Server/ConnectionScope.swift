import NIOCore

/// What lives as long as one client connection: the recording proxy keeps the upstream
/// connection of that client here, so the next request on the same client connection reuses it.
/// An HTTP/2 client connection's streams share one scope, and so one upstream HTTP/2 connection.
/// Used on the connection's event loop only.
final class ConnectionScope {
    /// Flushes this connection's writes, and its upstream connection's, at the end of the round.
    let deferredFlush = DeferredFlush()
    /// The upstream connection this client connection uses, busy or idle.
    private var upstream: UpstreamConnection?
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

    /// The kept connection to `origin` when it is open and carries no exchange.
    func idleUpstream(for origin: UpstreamOrigin) -> UpstreamConnection? {
        guard let upstream, upstream.origin == origin, upstream.isIdle else { return nil }
        return upstream
    }

    /// Keeps `connection` as this client's upstream, closing the one kept before. A closed scope
    /// closes it at once and returns false: the client left while the connection was being opened.
    func keep(_ connection: UpstreamConnection) -> Bool {
        if let upstream, upstream !== connection { upstream.close() }
        if isClosed {
            connection.close()
            upstream = nil
            return false
        }
        upstream = connection
        return true
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
        upstream?.clientLeft()
        upstream = nil
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
