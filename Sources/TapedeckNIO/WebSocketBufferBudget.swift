import NIOConcurrencyHelpers

/// The bytes of unfinished WebSocket messages that all of a server's connections together may
/// hold: each connection may buffer a message up to its size limit, and without a total, many
/// connections each holding most of one would take memory without bound. A fragment that would
/// pass the total is refused (``WebSocketMessageReader`` closes its socket with 1009); what a
/// message held is given back when it ends or its connection does.
package final class WebSocketBufferBudget: Sendable {
    /// The most bytes held at once.
    package let limit: Int
    private let held = NIOLockedValueBox(0)

    package init(limit: Int) {
        self.limit = limit
    }

    /// The bytes held now.
    package var inUse: Int { held.withLockedValue { $0 } }

    /// Takes `count` more bytes; false, taking nothing, when that would pass the limit.
    package func take(_ count: Int) -> Bool {
        held.withLockedValue { held in
            guard held + count <= limit else { return false }
            held += count
            return true
        }
    }

    /// Gives back `count` bytes taken earlier.
    package func giveBack(_ count: Int) {
        guard count > 0 else { return }
        held.withLockedValue { $0 -= count }
    }
}
