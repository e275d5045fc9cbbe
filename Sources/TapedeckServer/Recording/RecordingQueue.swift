import Dispatch
import TapedeckCore

/// Records finished exchanges off the event loops, in the order they finished. The recording
/// thread starts 2 ms after the first exchange of a batch and takes everything pending in one
/// go, so a busy proxy wakes it a few hundred times a second rather than once per exchange.
final class RecordingQueue: Sendable {
    private struct Pending {
        var exchanges: [FinishedExchange] = []
        var isDraining = false
    }

    /// How long a batch gathers before the recording thread takes it.
    private static let gathering = DispatchTimeInterval.milliseconds(2)

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
        if startDraining { queue.asyncAfter(deadline: .now() + Self.gathering) { [self] in drain() } }
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
