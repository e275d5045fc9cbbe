import Dispatch
@_spi(Internals) import TapedeckCore

/// Records finished exchanges in the order they finished.
///
/// A light exchange (``FinishedExchange/isLight``) is recorded at once, on the event loop that
/// finished it, when nothing waits for the recording thread: handing every exchange to another
/// thread cost more than recording a small one. Heavier exchanges, and whatever finishes while
/// one waits, go to the recording thread, so a large body never holds up an event loop and a
/// connection's exchanges keep their order. The recording thread starts 2 ms after the first
/// exchange of a batch and takes everything pending in one go.
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

    /// Records an exchange now when it is light and nothing waits, else queues it.
    func add(_ exchange: FinishedExchange) {
        let isLight = exchange.isLight
        // nil: record it here; otherwise whether the recording thread must be started.
        let startDraining = pending.withLock { pending -> Bool? in
            if isLight && pending.exchanges.isEmpty && !pending.isDraining { return nil }
            pending.exchanges.append(exchange)
            defer { pending.isDraining = true }
            return !pending.isDraining
        }
        guard let startDraining else { return record(exchange) }
        if startDraining { queue.asyncAfter(deadline: .now() + Self.gathering) { [self] in drain() } }
    }

    /// Whether the recording thread has nothing to record and is not recording.
    var isIdle: Bool { pending.withLock { $0.exchanges.isEmpty && !$0.isDraining } }

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
