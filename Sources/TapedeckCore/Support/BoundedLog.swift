import Foundation

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
@_spi(Internals) public final class BoundedLog<Entry: Sendable>: @unchecked Sendable {
    @usableFromInline struct State {
        @usableFromInline var entries: [Entry] = []
        @usableFromInline var start = 0
        @usableFromInline var dropped = 0
        @usableFromInline var lastNumber = 0
    }

    /// The most entries kept.
    public let capacity: Int
    // A lock and the state it guards rather than a `Locked<State>`: appending needs no closure,
    // so the entry is consumed as it came instead of moved through an optional a closure could
    // take it from (entries are large structs, and every replayed request appends to three logs).
    @usableFromInline let lock = NSLock()
    /// Read and changed only while `lock` is held.
    @usableFromInline var state = State()

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
        lock.lock()
        defer { lock.unlock() }
        state.lastNumber += 1
        number(&entry, state.lastNumber)
        if state.entries.count < capacity {
            state.entries.append(consume entry)
        } else {
            state.entries[state.start] = consume entry
            state.start = (state.start + 1) % capacity
            state.dropped += 1
        }
        return state.lastNumber
    }

    /// The entries kept, oldest first, and how many older ones were dropped.
    public func snapshot() -> (entries: [Entry], dropped: Int) {
        withLock { state in (Array(state.entries[state.start...] + state.entries[..<state.start]), state.dropped) }
    }

    /// Changes the kept entries `matches` picks (an entry that grows after it was added: a
    /// WebSocket conversation once it ends).
    public func update(where matches: (Entry) -> Bool, _ change: (inout Entry) -> Void) {
        withLock { state in
            for index in state.entries.indices where matches(state.entries[index]) { change(&state.entries[index]) }
        }
    }

    /// Empties the log; numbering goes on.
    public func reset() {
        withLock { $0 = State(lastNumber: $0.lastNumber) }
    }

    private func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }
}
