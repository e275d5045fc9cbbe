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

    private let log: BoundedLog<MatchDiagnosis>

    /// Creates a log keeping at most `capacity` diagnoses.
    public init(capacity: Int = 100) {
        log = BoundedLog(capacity: capacity)
    }

    /// Adds a diagnosis, dropping the oldest when full.
    public func append(_ diagnosis: MatchDiagnosis) {
        log.append(diagnosis)
    }

    /// The current document.
    public func document() -> Document {
        let (unmatched, dropped) = log.snapshot()
        return Document(unmatched: unmatched, dropped: dropped)
    }

    /// Empties the log.
    public func reset() { log.reset() }
}
