import TapedeckCore

/// Drops the interactions a replay run never played, according to the replay server's journal.
///
/// It refuses to guess: a journal that dropped old entries, or that never mentions the cassette,
/// could make it delete interactions that were played, so both are errors unless forced.
package struct CassettePruner: Sendable {
    /// The journal, as `GET /__tapedeck/journal` returns it.
    package let journal: JournalDocument
    /// The names the journal may use for the cassette (file name with and without `.json`, or as given).
    package let names: Set<String>
    /// Prune even when the journal dropped entries or never names the cassette.
    package let force: Bool

    /// Creates a pruner.
    package init(journal: JournalDocument, names: Set<String>, force: Bool = false) {
        self.journal = journal
        self.names = names
        self.force = force
    }

    /// The cassette without unplayed interactions, and the positions removed.
    package func prune(_ cassette: Cassette, file: String) throws(ToolingError) -> (cassette: Cassette, removed: [Int]) {
        if journal.dropped > 0 && !force {
            throw ToolingError(file: file, kind: .unsafeJournal(
                "the journal dropped its \(journal.dropped) oldest entries, so interactions played early are unknown; "
                + "save the journal more often (or start the server with a larger journal), or pass --force"))
        }
        let matchedNames = Set(journal.entries.compactMap(\.cassette).filter(refersToCassette))
        if matchedNames.count > 1 && !force {
            throw ToolingError(file: file, kind: .unsafeJournal(
                "the journal names several cassettes that could be this one (\(matchedNames.sorted().joined(separator: ", "))); "
                + "pass --name with the one the server used"))
        }
        let mentioned = journal.entries.compactMap { entry -> Int? in
            guard let cassetteName = entry.cassette, matchedNames.contains(cassetteName) else { return nil }
            return entry.index
        }
        if mentioned.isEmpty && !force {
            let seen = Set(journal.entries.compactMap(\.cassette)).sorted()
            throw ToolingError(file: file, kind: .unsafeJournal(
                "the journal never names this cassette (it names \(seen.isEmpty ? "none" : seen.joined(separator: ", "))); "
                + "pass --name with the name the server used, or --force to drop every interaction"))
        }
        if let outside = mentioned.first(where: { $0 < 0 || $0 >= cassette.interactions.count }) {
            throw ToolingError(file: file, kind: .unsafeJournal(
                "the journal names interaction \(outside) but the cassette has \(cassette.interactions.count); "
                + "it was saved against a different version of the cassette"))
        }
        let played = Set(mentioned)
        var result = cassette
        result.interactions = cassette.interactions.indices.filter(played.contains).map { cassette.interactions[$0] }
        return (result, cassette.interactions.indices.filter { !played.contains($0) })
    }

    /// Whether a cassette name in the journal is this cassette: the same name, or the same file in another
    /// spelling of its folder (the server names a cassette by its path as given on its command line).
    func refersToCassette(_ journalName: String) -> Bool {
        if names.contains(journalName) { return true }
        guard let last = journalName.split(separator: "/").last.map(String.init), last != journalName else { return false }
        return names.contains(last)
    }

    /// The names a server may give a cassette file: `NAME`, `NAME.json`, and the path as given.
    package static func names(for path: String) -> Set<String> {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        let stem = last.hasSuffix(".json") ? String(last.dropLast(5)) : last
        return [path, last, stem]
    }
}
