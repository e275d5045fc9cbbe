@_spi(Internals) import TapedeckCore

/// The latest unmatched requests with their diagnoses, bounded, for `GET /__tapedeck/unmatched`.
package final class UnmatchedLog: Sendable {
    /// The admin API's document: the diagnoses kept, oldest first, and how many were dropped.
    package struct Document: Sendable, Codable {
        /// The diagnoses, oldest first.
        package var unmatched: [MatchDiagnosis]
        /// How many older ones were dropped.
        package var dropped: Int
    }

    private let log: BoundedLog<MatchDiagnosis>

    /// Creates a log keeping at most `capacity` diagnoses.
    package init(capacity: Int = 100) {
        log = BoundedLog(capacity: capacity)
    }

    /// Adds a diagnosis, dropping the oldest when full.
    package func append(_ diagnosis: consuming MatchDiagnosis) {
        log.append(diagnosis)
    }

    /// The current document.
    package func document() -> Document {
        let (unmatched, dropped) = log.snapshot()
        return Document(unmatched: unmatched, dropped: dropped)
    }

    /// Empties the log.
    package func reset() { log.reset() }
}
