/// What lives as long as one client connection: the recording proxy keeps the upstream
/// connection of that client here, so the next request on the same client connection reuses it.
/// Used on the connection's event loop only.
final class ConnectionScope {
    /// Flushes this connection's writes, and its upstream connection's, at the end of the round.
    let deferredFlush = DeferredFlush()
    /// The upstream connection this client connection uses, busy or idle.
    private var upstream: UpstreamConnection?
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

    /// Closes what the client connection kept; called when it closes.
    func close() {
        isClosed = true
        upstream?.clientLeft()
        upstream = nil
    }
}
