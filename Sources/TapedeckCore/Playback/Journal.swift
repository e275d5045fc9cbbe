import Foundation

/// What happened to one request the replay server received: the admin API's journal entry,
/// and what `tapedeck prune` reads to find interactions never played.
public struct JournalEntry: Sendable, Hashable, Codable {
    /// How the request was answered.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// A recorded interaction was served.
        case played
        /// Nothing matched.
        case unmatched
        /// Interactions matched but all were played and the policy is `error`.
        case exhausted
        /// Forwarded upstream and recorded (recording proxy).
        case recorded
    }

    /// When the request arrived, ISO 8601 UTC.
    public var time: String
    /// The method.
    public var method: String
    /// The URL as received.
    public var url: String
    /// The `Tapedeck-Session`, if any.
    public var session: String?
    /// How it was answered.
    public var outcome: Outcome
    /// The cassette of the interaction served, if any.
    public var cassette: String?
    /// The interaction's position in that cassette, if any.
    public var index: Int?

    /// Creates an entry.
    public init(time: String, method: String, url: String, session: String?, outcome: Outcome,
                cassette: String? = nil, index: Int? = nil) {
        self.time = time
        self.method = method
        self.url = url
        self.session = session
        self.outcome = outcome
        self.cassette = cassette
        self.index = index
    }
}

/// The journal as the admin API returns it: the latest entries, and how many older ones were dropped.
public struct JournalDocument: Sendable, Hashable, Codable {
    /// The entries kept, oldest first.
    public var entries: [JournalEntry]
    /// How many older entries were dropped to keep the bound.
    public var dropped: Int

    /// Creates a document.
    public init(entries: [JournalEntry], dropped: Int) {
        self.entries = entries
        self.dropped = dropped
    }
}

/// A bounded, thread-safe journal of the latest requests.
public final class Journal: Sendable {
    private struct State {
        var entries: [JournalEntry] = []
        var start = 0
        var dropped = 0
    }

    /// The most entries kept (default 1,000).
    public let capacity: Int
    private let state = Locked(State())

    /// Creates a journal keeping at most `capacity` entries.
    public init(capacity: Int = 1000) {
        self.capacity = max(1, capacity)
    }

    /// Adds an entry, dropping the oldest when full.
    public func append(_ entry: JournalEntry) {
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

    /// The entries, oldest first, and the number dropped.
    public func document() -> JournalDocument {
        state.withLock { state in
            JournalDocument(entries: Array(state.entries[state.start...] + state.entries[..<state.start]), dropped: state.dropped)
        }
    }

    /// Empties the journal.
    public func reset() {
        state.withLock { $0 = State() }
    }
}
