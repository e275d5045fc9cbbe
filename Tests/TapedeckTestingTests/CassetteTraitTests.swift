import Foundation
import HTTPTypes
import Tapedeck
import TapedeckTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The repository's cassettes folder, shared by many tests below.
let sharedCassettes: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { url.deleteLastPathComponent() }
    return url.appendingPathComponent("cassettes")
}()

/// Each interaction may be played once per test: a second play in the same test fails.
let playOnce = PlaybackOptions(exhaustion: .error)

func image() -> HTTPRequest {
    HTTPRequest(method: .get, scheme: "http", authority: "api.example.test", path: "/image.png")
}

/// The `.cassette("name")` trait: one cassette and playback state per test, parallel-safe.
@Suite struct CassetteTraitTests {
    @Test(.cassette("example", directory: sharedCassettes, options: playOnce), arguments: 0..<24)
    func parallelCasesSharingACassetteEachHaveTheirOwnPlaybackState(round: Int) async throws {
        try await Task.sleep(for: .milliseconds(round % 4))
        let (response, data) = try await TestCassette.connector().send(image(), body: nil)
        #expect(response.status.code == 200)
        #expect(data.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        await #expect(throws: UnmatchedRequestError.self) { _ = try await TestCassette.connector().send(image(), body: nil) }
    }

    @Test(.cassette("example", directory: sharedCassettes, options: playOnce))
    func anotherTestOnTheSameCassetteStartsFromTheBeginning() async throws {
        let (_, data) = try await TestCassette.connector().send(image(), body: nil)
        #expect(!data.isEmpty)
    }

    @Test(.cassette("example", directory: sharedCassettes))
    func childTasksSeeTheTestsCassette() async throws {
        let name = await Task { TestCassette.current?.location.name }.value
        #expect(name == "example")
        #expect(TestCassette.current?.mode == .replay)
    }

    @Test(.cassette("example", directory: sharedCassettes))
    func urlSessionConfigurationReplaysTheTestsCassette() async throws {
        let session = URLSession(configuration: try #require(TestCassette.current).urlSessionConfiguration())
        let (data, _) = try await session.data(from: URL(string: "http://api.example.test/plaintext?name=Shawn")!)
        #expect(String(decoding: data, as: UTF8.self) == "Hello Shawn!")
    }

    @Test func withoutTheTraitThereIsNoCassette() {
        #expect(TestCassette.current == nil)
        #expect(throws: TestCassetteMissingTrait.self) { try TestCassette.connector() }
    }

    @Test func missingCassetteInReplayFailsTheTestSayingHowToRecordIt() async throws {
        let trait = CassetteTrait.cassette("no-such-cassette", directory: sharedCassettes)
        await #expect {
            try await trait.provideScope(for: try #require(Test.current), testCase: nil) {
                Issue.record("the test body must not run without its cassette")
            }
        } throws: { error in
            let text = "\(error)"
            return text.contains("no-such-cassette.json") && text.contains("TAPEDECK_MODE=record swift test")
                && text.contains("missingCassetteInReplayFailsTheTestSayingHowToRecordIt")
        }
    }

    @Test func requireAllPlayedFailsTheTestListingWhatWasNeverPlayed() async throws {
        let trait = CassetteTrait.cassette("example", directory: sharedCassettes, requireAllPlayed: true)
        await #expect {
            try await trait.provideScope(for: try #require(Test.current), testCase: nil) {
                _ = try await TestCassette.connector().send(image(), body: nil)
            }
        } throws: { error in
            guard case .unplayed(let name, let interactions) = error as? TestCassetteError else { return false }
            return name == "example" && interactions.count == 7 && interactions.contains("#0 GET http://api.example.test/plaintext?name=Shawn")
                && !interactions.contains { $0.hasPrefix("#4 ") }
        }
    }

    @Test func requireAllPlayedPassesWhenEverythingWasPlayed() async throws {
        let cassette = try CassetteCodec().load(sharedCassettes.appendingPathComponent("example.json"))
        let trait = CassetteTrait.cassette("example", directory: sharedCassettes, requireAllPlayed: true)
        try await trait.provideScope(for: try #require(Test.current), testCase: nil) {
            let connector = try TestCassette.connector()
            for interaction in cassette.interactions {
                let request = interaction.request
                let target = request.target
                var http = HTTPRequest(method: HTTPRequest.Method(request.method)!, scheme: target.scheme ?? "http",
                                       authority: target.host ?? "", path: target.path + (target.query.map { "?\($0)" } ?? ""))
                if let type = request.headers["Content-Type"] { http.headerFields[.contentType] = type }
                _ = try await connector.send(http, body: request.body.data)
            }
        }
    }

    @Test func theTestBodysErrorIsWhatFailsTheTest() async throws {
        struct BodyFailed: Error {}
        let trait = CassetteTrait.cassette("example", directory: sharedCassettes, requireAllPlayed: true)
        await #expect(throws: BodyFailed.self) {
            try await trait.provideScope(for: try #require(Test.current), testCase: nil) { throw BodyFailed() }
        }
    }
}

/// The trait with stubs: a test runs on stubs alone, with no cassette file.
@Suite struct CassetteTraitStubTests {
    @Test(.cassette("no-such-cassette-stubs-only", stubs: [
        Stub(request: RequestPattern(method: "GET", path: "/health"), response: StubResponse(status: 200, body: Body(text: "ok"))),
    ]))
    func stubsWithoutACassette() async throws {
        let connector = try TestCassette.connector()
        let (response, data) = try await connector.send(
            HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/health"), body: nil)
        #expect(response.status == .ok)
        #expect(String(decoding: data, as: UTF8.self) == "ok")
    }
}
