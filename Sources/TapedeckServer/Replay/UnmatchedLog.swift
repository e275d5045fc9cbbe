import TapedeckCore

/// The latest unmatched requests with their diagnoses, bounded, for `GET /__tapedeck/unmatched`.
public final class UnmatchedLog: Sendable {
    /// The admin API's document: the diagnoses kept, oldest first, and how many were dropped.
    public struct Document: Sendable, Codable {
        /// The diagnoses, oldest first.
        public var unmatched: [MatchDiagnosis]
        /// How many older ones were dropped.
        public var dropped: Int
    }

    private let capacity: Int
    private let state = Locked(Document(unmatched: [], dropped: 0))

    /// Creates a log keeping at most `capacity` diagnoses.
    public init(capacity: Int = 100) {
        self.capacity = max(1, capacity)
    }

    /// Adds a diagnosis, dropping the oldest when full.
    public func append(_ diagnosis: MatchDiagnosis) {
        state.withLock { state in
            state.unmatched.append(diagnosis)
            if state.unmatched.count > capacity {
                state.unmatched.removeFirst()
                state.dropped += 1
            }
        }
    }

    /// The current document.
    public func document() -> Document { state.withLock { $0 } }

    /// Empties the log.
    public func reset() { state.withLock { $0 = Document(unmatched: [], dropped: 0) } }
}
