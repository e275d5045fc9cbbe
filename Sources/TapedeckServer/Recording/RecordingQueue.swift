import Dispatch
import TapedeckCore

/// Records finished exchanges off the event loops, in the order they finished. Everything
/// pending is taken in one go, so a busy proxy wakes the recording thread once per batch
/// rather than once per exchange.
final class RecordingQueue: Sendable {
    private struct Pending {
        var exchanges: [FinishedExchange] = []
        var isDraining = false
    }

    private let pending = Locked(Pending())
    private let queue = DispatchQueue(label: "tapedeck.recording")
    private let record: @Sendable (FinishedExchange) -> Void

    /// Creates a queue that hands each exchange to `record`, one at a time.
    init(record: @escaping @Sendable (FinishedExchange) -> Void) {
        self.record = record
    }

    /// Queues an exchange to record.
    func add(_ exchange: FinishedExchange) {
        let startDraining = pending.withLock { pending -> Bool in
            pending.exchanges.append(exchange)
            defer { pending.isDraining = true }
            return !pending.isDraining
        }
        if startDraining { queue.async { [self] in drain() } }
    }

    private func drain() {
        while true {
            let batch = pending.withLock { pending -> [FinishedExchange] in
                if pending.exchanges.isEmpty { pending.isDraining = false }
                defer { pending.exchanges = [] }
                return pending.exchanges
            }
            guard !batch.isEmpty else { return }
            for exchange in batch { record(exchange) }
        }
    }
}
