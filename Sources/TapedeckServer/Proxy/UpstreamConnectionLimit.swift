import NIOCore
@_spi(Internals) import TapedeckCore

/// How many connections the recording proxy holds open to each upstream, over all its clients
/// (`--max-upstream-connections`). The upstream is often a shared staging service: a client
/// that opens streams faster than they are answered must not open connections to it without
/// bound. Past the limit a request is answered 503 rather than forwarded.
package final class UpstreamConnectionLimit: Sendable {
    /// The most connections open to one origin at once.
    package let limit: Int
    private let open = Locked<[UpstreamOrigin: Int]>([:])

    package init(limit: Int) {
        self.limit = limit
    }

    /// The limit was reached for an origin: what a request that would need one more connection is told.
    struct Reached: Error, CustomStringConvertible {
        let origin: UpstreamOrigin
        let limit: Int
        var description: String {
            "\(limit) connections to \(origin.host):\(origin.port) are open, the most --max-upstream-connections allows"
        }
    }

    /// `dialer`, counting each connection it opens against the limit from the dial until it closes.
    func counting(_ dialer: UpstreamDialer) -> UpstreamDialer {
        UpstreamDialer { [self] origin, tls, timeout, eventLoop, addHandlers in
            guard take(origin) else { return eventLoop.makeFailedFuture(Reached(origin: origin, limit: limit)) }
            let dialing = dialer.dial(origin, tls, timeout, eventLoop, addHandlers)
            dialing.whenComplete { result in
                switch result {
                case .success(let channel): channel.closeFuture.whenComplete { _ in self.giveBack(origin) }
                case .failure: self.giveBack(origin)
                }
            }
            return dialing
        }
    }

    private func take(_ origin: UpstreamOrigin) -> Bool {
        open.withLock { open in
            guard open[origin, default: 0] < limit else { return false }
            open[origin, default: 0] += 1
            return true
        }
    }

    private func giveBack(_ origin: UpstreamOrigin) {
        open.withLock { open in
            open[origin, default: 1] -= 1
            if open[origin] == 0 { open[origin] = nil }
        }
    }
}
