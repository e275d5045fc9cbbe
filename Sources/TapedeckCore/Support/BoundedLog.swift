/// The latest entries of something, at most `capacity` of them, thread-safe: appending to a
/// full log drops the oldest entry and counts it. Entries are numbered as they come, from 1,
/// and the numbers go on across resets.
///
/// Appending is inlinable, so each log is compiled for its own entry type where it is used:
/// left generic, every entry was copied in and dropped through the type's value witnesses, and
/// the three logs a replayed request appends to (journal, inspector, verify log) cost about 2 %
/// of replay throughput more. It is SPI (`@_spi(Internals) import TapedeckCore`) rather than
/// `package`: the compiler (Swift 6.3) inlines `@inlinable` declarations into other modules only
/// when they are public, and as `package` the inspector's log went generic again (about 3 % of
/// replay's CPU). ``Locked`` and `caseInsensitiveEquals` are SPI for the same reason.
@_spi(Internals) public final class BoundedLog<Entry: Sendable>: Sendable {
    @usableFromInline struct State {
        @usableFromInline var entries: [Entry] = []
        @usableFromInline var start = 0
        @usableFromInline var dropped = 0
        @usableFromInline var lastNumber = 0
    }

    /// The most entries kept.
    public let capacity: Int
    @usableFromInline let state = Locked(State())

    /// Creates a log keeping at most `capacity` entries.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds an entry, dropping the oldest when full.
    @inlinable
    public func append(_ entry: consuming Entry) {
        append(entry) { _, _ in }
    }

    /// Adds an entry after `number` gave it its number, dropping the oldest when full; returns the
    /// number. Numbering and adding are one step, so entries are kept in the order of their numbers.
    @inlinable @discardableResult
    public func append(_ entry: consuming Entry, numbering number: (inout Entry, Int) -> Void) -> Int {
        // Moved out of an optional inside the lock; a value the closure captured could only be copied.
        var pending = Optional(entry)
        return state.withLock { state in
            state.lastNumber += 1
            var entry = pending.take()!
            number(&entry, state.lastNumber)
            if state.entries.count < capacity {
                state.entries.append(entry)
            } else {
                state.entries[state.start] = entry
                state.start = (state.start + 1) % capacity
                state.dropped += 1
            }
            return state.lastNumber
        }
    }

    /// The entries kept, oldest first, and how many older ones were dropped.
    public func snapshot() -> (entries: [Entry], dropped: Int) {
        state.withLock { state in (Array(state.entries[state.start...] + state.entries[..<state.start]), state.dropped) }
    }

    /// Changes the kept entries `matches` picks (an entry that grows after it was added: a
    /// WebSocket conversation once it ends).
    public func update(where matches: (Entry) -> Bool, _ change: (inout Entry) -> Void) {
        state.withLock { state in
            for index in state.entries.indices where matches(state.entries[index]) { change(&state.entries[index]) }
        }
    }

    /// Empties the log; numbering goes on.
    public func reset() {
        state.withLock { $0 = State(lastNumber: $0.lastNumber) }
    }
}
