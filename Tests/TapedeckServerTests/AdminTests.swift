import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCore
import TapedeckServer
import TapedeckTestSupport
import Testing

/// The admin API under /__tapedeck/.
@Suite struct AdminTests {
    @Test(.requires(.curl)) func healthNamesTheModeAndCassettes() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let result = try await Curl.run([harness.base + "/__tapedeck/health"])
            let health = try JSONDecoder().decode(AdminEndpoints.Health.self, from: result.output)
            #expect(health.status == "ok")
            #expect(health.mode == "replay")
            #expect(health.cassettes == [Fixtures.exampleCassette.relativePath])
            #expect(health.interactions == 8)
        }
    }

    @Test(.requires(.curl)) func journalIsBoundedAndCountsDropped() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], configure: { $0.journalCapacity = 2 }) { (harness: ReplayHarness) async throws in
            _ = try await Curl.run([harness.base + "/plaintext?name=Shawn"])
            _ = try await Curl.run([harness.base + "/nope"])
            _ = try await Curl.run([harness.base + "/image.png"])
            let result = try await Curl.run([harness.base + "/__tapedeck/journal"])
            let journal = try JSONDecoder().decode(JournalDocument.self, from: result.output)
            #expect(journal.dropped == 1)
            #expect(journal.entries.map(\.url) == ["/nope", "/image.png"])
            #expect(journal.entries.map(\.outcome) == [.unmatched, .played])
            #expect(journal.entries.last?.index == 4)
        }
    }

    @Test(.requires(.curl)) func unmatchedListsNearestCandidates() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            _ = try await Curl.run([harness.base + "/plaintext?name=Bob"])
            let result = try await Curl.run([harness.base + "/__tapedeck/unmatched"])
            let document = try JSONDecoder().decode(UnmatchedLog.Document.self, from: result.output)
            #expect(document.unmatched.count == 1)
            #expect(document.unmatched.first?.nearest.first?.url == "http://api.example.test/plaintext?name=Shawn")
        }
    }

    @Test(.requires(.curl)) func resetRestartsPlaybackAndClearsTheJournal() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Fixtures.counterCassette, named: "counter.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            #expect(try await Curl.run([harness.base + "/counter"]).text == "one")
            #expect(try await Curl.run([harness.base + "/counter"]).text == "two")
            let reset = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", harness.base + "/__tapedeck/reset"])
            #expect(reset.text.contains("true"))
            #expect(harness.responder.journal.document().entries.isEmpty)
            #expect(try await Curl.run([harness.base + "/counter"]).text == "one")
            let wrongMethod = try await Curl.run(["--write-out", "%{http_code}", "--output", "/dev/null", harness.base + "/__tapedeck/reset"])
            #expect(wrongMethod.text == "405")
            let unknown = try await Curl.run(["--write-out", "%{http_code}", "--output", "/dev/null", harness.base + "/__tapedeck/other"])
            #expect(unknown.text == "404")
        }
    }
}
