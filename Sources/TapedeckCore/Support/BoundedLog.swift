/// The latest entries of something, at most `capacity` of them, thread-safe: appending to a
/// full log drops the oldest entry and counts it.
public final class BoundedLog<Entry: Sendable>: Sendable {
    private struct State {
        var entries: [Entry] = []
        var start = 0
        var dropped = 0
    }

    /// The most entries kept.
    public let capacity: Int
    private let state = Locked(State())

    /// Creates a log keeping at most `capacity` entries.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds an entry, dropping the oldest when full.
    public func append(_ entry: Entry) {
        state.withLock { state in
            if state.entries.count < capacity {
                state.entries.append(entry)
            } else {
                state.entries[state.start] = entry
                state.start = (state.start + 1) % capacity
                state.dropped += 1
            }
        }
    }

    /// The entries kept, oldest first, and how many older ones were dropped.
    public func snapshot() -> (entries: [Entry], dropped: Int) {
        state.withLock { state in (Array(state.entries[state.start...] + state.entries[..<state.start]), state.dropped) }
    }

    /// Empties the log.
    public func reset() {
        state.withLock { $0 = State() }
    }
}
