import Foundation

/// What happened to one request the replay server received: the admin API's journal entry,
/// and what `tapedeck prune` reads to find interactions never played.
package struct JournalEntry: Sendable, Hashable, Codable {
    /// How the request was answered.
    package enum Outcome: String, Sendable, Hashable, Codable {
        /// A recorded interaction was served.
        case played
        /// Nothing matched.
        case unmatched
        /// Interactions matched but all were played and the policy is `error`.
        case exhausted
        /// Forwarded upstream and recorded (recording proxy).
        case recorded
        /// Forwarded upstream and not recorded (recording proxy, a passthrough host); the inspector's
        /// list only, never the journal.
        case forwarded
    }

    /// When the request arrived, ISO 8601 UTC.
    package var time: String
    /// The method.
    package var method: String
    /// The URL as received.
    package var url: String
    /// The `Tapedeck-Session`, if any.
    package var session: String?
    /// How it was answered.
    package var outcome: Outcome
    /// The cassette of the interaction served, if any.
    package var cassette: String?
    /// The interaction's position in that cassette, if any.
    package var index: Int?
    /// The stub that answered, by id, if a stub did.
    package var stub: String?
    /// That stub's name, if it has one.
    package var stubName: String?
    /// The broken connection the stub made instead of answering, if it asked for one.
    package var fault: StubFault?
    /// How the request, or the answer served, breaks the API document (`--openapi`), one line each.
    package var violations: [String]?

    /// Creates an entry.
    package init(time: String, method: String, url: String, session: String?, outcome: Outcome,
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

extension JournalEntry {
    /// The entry for `request`, at `time` (now unless given); an empty session is none.
    package init(request: CassetteRequest, session: String = "", outcome: Outcome, time: String = Timestamp.now()) {
        self.init(time: time, method: request.method, url: request.url, session: session.isEmpty ? nil : session, outcome: outcome)
    }

    /// The entry for a served playback: the interaction's place, or the stub that answered (and
    /// the fault it made, if any).
    package init(played playback: Playback, request: CassetteRequest, session: String) {
        self.init(request: request, session: session, outcome: .played)
        violations = playback.violations.isEmpty ? nil : playback.violations
        if let stub = playback.stub {
            self.stub = stub.id
            stubName = stub.name
            fault = playback.fault
        } else {
            cassette = playback.cassette
            index = playback.index
        }
    }
}

/// The journal as the admin API returns it: the latest entries, and how many older ones were dropped.
package struct JournalDocument: Sendable, Hashable, Codable {
    /// The entries kept, oldest first.
    package var entries: [JournalEntry]
    /// How many older entries were dropped to keep the bound.
    package var dropped: Int

    /// Creates a document.
    package init(entries: [JournalEntry], dropped: Int) {
        self.entries = entries
        self.dropped = dropped
    }
}

/// A bounded, thread-safe journal of the latest requests.
package final class Journal: Sendable {
    private let log: BoundedLog<JournalEntry>

    /// The most entries kept (default 1,000).
    package var capacity: Int { log.capacity }

    /// Creates a journal keeping at most `capacity` entries.
    package init(capacity: Int = 1000) {
        log = BoundedLog(capacity: capacity)
    }

    /// Adds an entry, dropping the oldest when full.
    package func append(_ entry: consuming JournalEntry) {
        log.append(entry)
    }

    /// The entries, oldest first, and the number dropped.
    package func document() -> JournalDocument {
        let (entries, dropped) = log.snapshot()
        return JournalDocument(entries: entries, dropped: dropped)
    }

    /// Empties the journal.
    package func reset() {
        log.reset()
    }
}
