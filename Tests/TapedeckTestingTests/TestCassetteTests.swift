import Foundation
import HTTPTypes
import Tapedeck
import TapedeckTesting
import TapedeckTestSupport
import Testing

/// Opening, recording and checking one test's cassette, with the environment injected.
@Suite struct TestCassetteTests {
    func temporaryDirectory() throws -> URL {
        let url = TestFiles.folder.appendingPathComponent("tapedeck-testing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func defaultDirectoryIsCassettesBesideTheTestFile() throws {
        let location = try CassetteLocation(name: "users", filePath: "/src/Tests/AppTests/UserTests.swift", environment: [:])
        #expect(location.file.path == "/src/Tests/AppTests/cassettes/users.json")
        let explicit = try CassetteLocation(name: "users.json", directory: URL(fileURLWithPath: "/fixtures"), filePath: "/x.swift",
                                            environment: [:])
        #expect(explicit.file.path == "/fixtures/users.json")
    }

    @Test func environmentDirectoryWinsSoARecordingRunWritesTheSourceTree() throws {
        let location = try CassetteLocation(name: "users", directory: URL(fileURLWithPath: "/bundle"), filePath: "/x.swift",
                                            environment: ["TAPEDECK_CASSETTE_DIR": "/src/cassettes"])
        #expect(location.file.path == "/src/cassettes/users.json")
    }

    @Test(arguments: ["", "../secrets", "a/../../b", "/etc/passwd"])
    func unusableNamesAreRefused(name: String) {
        #expect(throws: TestCassetteError.self) { try CassetteLocation(name: name, filePath: "/x.swift", environment: [:]) }
    }

    @Test func missingCassetteInReplayModeSaysHowToRecordIt() throws {
        let location = try CassetteLocation(name: "absent", directory: try temporaryDirectory(), filePath: "/x.swift", environment: [:])
        #expect {
            _ = try TestCassette(location: location, environment: [:], test: "listsUsers")
        } throws: { error in
            guard case .missing = error as? TestCassetteError else { return false }
            return "\(error)".contains("TAPEDECK_MODE=record swift test --filter 'listsUsers'")
        }
    }

    @Test func invalidModeInTheEnvironmentIsATypedError() throws {
        let location = try CassetteLocation(name: "example", directory: sharedCassettes, filePath: "/x.swift", environment: [:])
        #expect {
            _ = try TestCassette(location: location, environment: ["TAPEDECK_MODE": "sometimes"])
        } throws: { error in
            guard case .invalidMode = error as? TestCassetteError else { return false }
            return "\(error)".contains("sometimes")
        }
    }

    @Test func corruptCassetteIsATypedErrorNamingTheFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{\"version\": 1, \"interactions\": [".utf8).write(to: directory.appendingPathComponent("broken.json"))
        let location = try CassetteLocation(name: "broken", directory: directory, filePath: "/x.swift", environment: [:])
        #expect {
            _ = try TestCassette(location: location, environment: [:])
        } throws: { error in
            guard case .invalid(let cassetteError) = error as? TestCassetteError else { return false }
            return cassetteError.file?.hasSuffix("broken.json") == true
        }
    }

    @Test(.requires(.python3)) func tapedeckModeRecordReRecordsWithoutCodeChanges() async throws {
        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = try CassetteLocation(name: "greeting", directory: directory, filePath: "/x.swift", environment: [:])
        let url = URL(string: upstream.baseURL)!
        let request = HTTPRequest(method: .get, scheme: "http", authority: "\(url.host!):\(url.port!)", path: "/plaintext?name=Ada")

        // The same code, mode .replay in the source; the environment decides.
        let recording = try TestCassette(location: location, mode: .replay, environment: ["TAPEDECK_MODE": "record"])
        #expect(recording.mode == .all)
        let (_, live) = try await recording.connector.send(request, body: nil)
        #expect(String(decoding: live, as: UTF8.self) == "Hello Ada!")
        try recording.finish(requireAllPlayed: true)
        #expect(try CassetteCodec().load(location.file).interactions.count == 1)

        upstream.stop()
        let replaying = try TestCassette(location: location, mode: .replay, environment: [:])
        let (_, replayed) = try await replaying.connector.send(request, body: nil)
        #expect(String(decoding: replayed, as: UTF8.self) == "Hello Ada!")
        #expect(replaying.unplayedInteractions().isEmpty)
    }
}
