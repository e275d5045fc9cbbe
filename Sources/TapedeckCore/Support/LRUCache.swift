/// A dictionary that keeps at most `capacity` keys, forgetting the one used least recently when
/// a new key would go past it: per-session playback state and per-host certificates, which a
/// client could otherwise grow without end by sending new session ids or hosts.
///
/// Not thread-safe by itself; keep it behind a ``Locked``. Each use is O(1) on average: recency
/// is a counter per key, and eviction scans only when the cache is full, then drops the oldest
/// eighth at once, so a full cache pays one scan per `capacity / 8` insertions.
package struct LRUCache<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// The most keys kept.
    package let capacity: Int

    /// An empty cache keeping at most `capacity` keys (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many keys are kept.
    package var count: Int { entries.count }

    /// The values kept, in no order.
    package var values: some Collection<Value> { entries.values.lazy.map(\.value) }

    /// The value for `key`, counted as a use; `defaultValue()` is stored first when there is none.
    ///
    /// A change through the subscript (`cache[key, default: [:]][inner] = 1`) is made in place:
    /// with a getter and a setter it would copy the whole value each time, and a session's play
    /// counts grow with its cassette, so every request would have copied them all.
    package subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        mutating get {
            entries.values[use(key, default: defaultValue)].value
        }
        _modify {
            yield &entries.values[use(key, default: defaultValue)].value
        }
    }

    /// Counts a use of `key`, storing `defaultValue()` first when there is none; returns where
    /// its entry is. A key already kept (every request of a session after its first) is hashed once.
    private mutating func use(_ key: Key, default defaultValue: () -> Value) -> [Key: (value: Value, used: UInt64)].Index {
        clock &+= 1
        if let index = entries.index(forKey: key) {
            entries.values[index].used = clock
            return index
        }
        insert(defaultValue(), for: key)
        return entries.index(forKey: key)!
    }

    /// Stores `value` for `key`, counted as a use.
    package mutating func set(_ value: Value, for key: Key) {
        clock &+= 1
        insert(value, for: key)
    }

    /// The value for `key` without counting a use; nil when there is none.
    package func peek(_ key: Key) -> Value? { entries[key]?.value }

    /// Forgets every key.
    package mutating func removeAll() { entries.removeAll() }

    private mutating func insert(_ value: Value, for key: Key) {
        if entries[key] == nil, entries.count >= capacity { evictOldest() }
        entries[key] = (value, clock)
    }

    private mutating func evictOldest() {
        let dropped = max(1, capacity / 8)
        let oldest = entries.sorted { $0.value.used < $1.value.used }.prefix(dropped).map(\.key)
        for key in oldest { entries[key] = nil }
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
