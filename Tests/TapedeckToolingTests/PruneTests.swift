import Foundation
import Testing
import TapedeckCore
@testable import TapedeckTooling

@Suite("prune")
struct PruneTests {
    /// Plays some of the example's requests through the core player and journals them as the replay server does.
    static func journalOfPlaying(_ positions: [Int], name: String = "example", capacity: Int = 1000) throws -> JournalDocument {
        let cassette = try CassetteCodec().load(ToolingTestSupport.exampleCassette)
        let player = Player(cassette: cassette, name: name)
        let journal = Journal(capacity: capacity)
        for position in positions {
            let request = cassette.interactions[position].request
            guard case .played(let playback) = player.play(request) else { throw TestSupportError("no match for \(position)") }
            journal.append(JournalEntry(time: Timestamp.now(), method: request.method, url: request.url, session: nil,
                                        outcome: .played, cassette: playback.cassette, index: playback.index))
        }
        journal.append(JournalEntry(time: Timestamp.now(), method: "GET", url: "/nothing", session: nil, outcome: .unmatched))
        return journal.document()
    }

    static func save(_ document: JournalDocument, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("journal.json")
        try JSONEncoder().encode(document).write(to: url)
        return url
    }

    @Test("interactions the journal never mentions are dropped, the rest keep their order")
    func unplayedInteractionsAreDropped() throws {
        let cassette = try CassetteCodec().load(ToolingTestSupport.exampleCassette)
        let journal = try Self.journalOfPlaying([5, 0, 2, 0])
        let (pruned, removed) = try CassettePruner(journal: journal, names: CassettePruner.names(for: "cassettes/example.json"))
            .prune(cassette, file: "example.json")
        #expect(removed == [1, 3, 4, 6, 7])
        #expect(pruned.interactions == [cassette.interactions[0], cassette.interactions[2], cassette.interactions[5]])
    }

    @Test("the server's name for the cassette may spell its folder differently; two candidates are refused")
    func journalNamesAreMatchedByFile() throws {
        let cassette = try CassetteCodec().load(ToolingTestSupport.exampleCassette)
        let names = CassettePruner.names(for: "./cassettes/example.json")
        let journal = try Self.journalOfPlaying([6], name: "cassettes/example.json")
        #expect(try CassettePruner(journal: journal, names: names).prune(cassette, file: "e").removed == [0, 1, 2, 3, 4, 5, 7])

        var twoFolders = journal
        twoFolders.entries.append(JournalEntry(time: "t", method: "GET", url: "/", session: nil, outcome: .played,
                                               cassette: "other/example.json", index: 1))
        #expect(throws: ToolingError.self) { try CassettePruner(journal: twoFolders, names: names).prune(cassette, file: "e") }
        #expect(try CassettePruner(journal: twoFolders, names: ["other/example.json"]).prune(cassette, file: "e").removed.count == 7)
    }

    @Test("a journal that dropped entries is refused unless forced")
    func droppedEntriesAreRefused() throws {
        let cassette = try CassetteCodec().load(ToolingTestSupport.exampleCassette)
        let journal = try Self.journalOfPlaying([0, 1, 2, 3], capacity: 2)
        #expect(journal.dropped == 3)
        #expect(throws: ToolingError.self) {
            try CassettePruner(journal: journal, names: ["example"]).prune(cassette, file: "example.json")
        }
        let forced = try CassettePruner(journal: journal, names: ["example"], force: true).prune(cassette, file: "example.json")
        #expect(forced.removed == [0, 1, 2, 4, 5, 6, 7])
    }

    @Test("a journal that never names the cassette is refused, naming the cassettes it does name")
    func unknownCassetteIsRefused() throws {
        let cassette = try CassetteCodec().load(ToolingTestSupport.exampleCassette)
        let journal = try Self.journalOfPlaying([0], name: "other")
        do {
            _ = try CassettePruner(journal: journal, names: ["example"]).prune(cassette, file: "example.json")
            Issue.record("expected a refusal")
        } catch {
            #expect(error.description.contains("it names other"))
        }
    }

    @Test("a journal pointing past the cassette's end is refused")
    func indexOutOfRangeIsRefused() throws {
        let journal = JournalDocument(entries: [JournalEntry(time: "t", method: "GET", url: "/", session: nil, outcome: .played,
                                                             cassette: "example", index: 40)], dropped: 0)
        let cassette = try CassetteCodec().load(ToolingTestSupport.exampleCassette)
        #expect(throws: ToolingError.self) { try CassettePruner(journal: journal, names: ["example"]).prune(cassette, file: "e") }
    }

    @Test("tapedeck prune writes the pruned cassette; a journal that is not one exits 2 naming the place")
    func commandPrunes() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let cassette = folder.appendingPathComponent("example.json")
        try FileManager.default.copyItem(at: ToolingTestSupport.exampleCassette, to: cassette)
        let journal = try Self.save(try Self.journalOfPlaying([1, 4]), in: folder)
        let outcome = try ToolingTestSupport.tapedeck("prune", cassette.path, "--journal", journal.path)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("kept 2 of 8 interactions"))
        let pruned = try CassetteCodec().load(cassette)
        #expect(pruned.interactions.map(\.request.url) == ["http://api.example.test/postName", "http://api.example.test/image.png"])

        let bad = folder.appendingPathComponent("bad.json")
        try Data("{\"entries\": [{\"method\": \"GET\"}], \"dropped\": 0}".utf8).write(to: bad)
        let refused = try ToolingTestSupport.tapedeck("prune", cassette.path, "--journal", bad.path)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("entries[0]."))
    }

    @Test("tapedeck prune --dry-run writes nothing; --name and -o pick the journal name and the output")
    func commandDryRunAndName() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let cassette = folder.appendingPathComponent("recorded.json")
        try FileManager.default.copyItem(at: ToolingTestSupport.exampleCassette, to: cassette)
        let before = try Data(contentsOf: cassette)
        let journal = try Self.save(try Self.journalOfPlaying([3], name: "api"), in: folder)

        let refused = try ToolingTestSupport.tapedeck("prune", cassette.path, "--journal", journal.path)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("it names api"))

        let dry = try ToolingTestSupport.tapedeck("prune", cassette.path, "--journal", journal.path, "--name", "api", "--dry-run")
        #expect(dry.status == 0)
        #expect(dry.stdout.contains("interactions[0] GET http://api.example.test/plaintext?name=Shawn: never played, dropped"))
        #expect(try Data(contentsOf: cassette) == before)

        let output = folder.appendingPathComponent("pruned.json")
        let written = try ToolingTestSupport.tapedeck("prune", cassette.path, "--journal", journal.path, "--name", "api", "-o", output.path)
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try CassetteCodec().load(output).interactions.map(\.request.url) == ["http://api.example.test/upload"])
        #expect(try Data(contentsOf: cassette) == before)
    }
}
