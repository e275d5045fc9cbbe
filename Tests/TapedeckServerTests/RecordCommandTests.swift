import AsyncHTTPClient
import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `tapedeck record` as a user runs it: the listening line, SIGINT saving, kill -9 durability.
@Suite struct RecordCommandTests {
    @Test(.requires(.curl)) func recordSavesEverythingAndExitsZeroOnSigint() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await TestUpstream.start()
        let cassette = directory.appending(path: "cli.json")
        let server = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0", "--insecure-upstream"],
                                       environment: ["TAPEDECK_HOME": directory.appending(path: "home").path])
        let port = try server.waitUntilListening()
        #expect(server.listeningLine == "tapedeck listening on http://127.0.0.1:\(port)")
        #expect(try await Curl.run(["http://127.0.0.1:\(port)/plaintext?name=Cli"]).text == "Hello Cli!")
        server.signal(SIGINT)
        #expect(server.waitForExit() == 0)
        #expect(server.standardError().contains("warning: --insecure-upstream"))
        try await upstream.stop()
        let stored = try CassetteCodec().load(cassette)
        #expect(stored.interactions.map(\.request.url) == [upstream.base + "/plaintext?name=Cli"])
    }

    /// With `--verbose` a line per recorded exchange, as the cassette holds it, then on exit how
    /// many interactions were saved; a second run into the same cassette says how many are new.
    @Test(.requires(.curl)) func recordPrintsEachExchangeWithVerboseAndASummaryOnExit() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await TestUpstream.start()
        let cassette = directory.appending(path: "feedback.json")
        let first = try Self.recordRun(cassette, upstream: upstream, flags: ["--verbose"], names: ["One", "Two"], home: directory)
        #expect(first == "recorded GET /plaintext?name=One 200\nrecorded GET /plaintext?name=Two 200\nsaved 2 interactions to \(cassette.path)\n")
        let second = try Self.recordRun(cassette, upstream: upstream, flags: ["--verbose"], names: ["Three"], home: directory)
        #expect(second == "recorded GET /plaintext?name=Three 200\nsaved 1 new interaction to \(cassette.path) (3 in all)\n")
        try await upstream.stop()
    }

    /// Standard output that is not a terminal gets only the summary; `--quiet` not even that.
    @Test(.requires(.curl)) func recordPrintsOnlyTheSummaryWhenNotATerminalAndNothingWhenQuiet() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await TestUpstream.start()
        let plain = directory.appending(path: "plain.json")
        #expect(try Self.recordRun(plain, upstream: upstream, flags: [], names: ["One"], home: directory) == "saved 1 interaction to \(plain.path)\n")
        let quiet = directory.appending(path: "quiet.json")
        #expect(try Self.recordRun(quiet, upstream: upstream, flags: ["--quiet"], names: ["One"], home: directory) == "")
        let idle = directory.appending(path: "idle.json")
        #expect(try Self.recordRun(idle, upstream: upstream, flags: [], names: [], home: directory) == "nothing recorded; \(idle.path) not written\n")
        try await upstream.stop()
    }

    /// Runs `tapedeck record CASSETTE --target UPSTREAM FLAGS`, asks `/plaintext?name=NAME` for each
    /// name, stops it with SIGINT and returns what it printed after its listening line.
    static func recordRun(_ cassette: URL, upstream: TestUpstream, flags: [String], names: [String], home: URL) throws -> String {
        let server = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0", "--insecure-upstream"] + flags,
                                         environment: ["TAPEDECK_HOME": home.appending(path: "home").path])
        let port = try server.waitUntilListening()
        for name in names {
            let answer = try ChildProcess.run(URL(filePath: "/usr/bin/env"), ["curl", "--silent", "http://127.0.0.1:\(port)/plaintext?name=\(name)"])
            #expect(answer.output == "Hello \(name)!")
        }
        server.signal(SIGINT)
        #expect(server.waitForExit() == 0, "\(server.standardError())")
        return server.standardOutputAfterListening()
    }

    @Test func killNineWhileRecordingLeavesAValidCassette() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await TestUpstream.start()
        let cassette = directory.appending(path: "killed.json")
        let server = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"],
                                       environment: ["TAPEDECK_HOME": directory.appending(path: "home").path])
        let port = try server.waitUntilListening()
        let load = Task {
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                var index = 0
                while !Task.isCancelled {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<8 {
                            index += 1
                            let url = "http://127.0.0.1:\(port)/download?size=\(20_000 + index)"
                            group.addTask { _ = try? await Clients.send(client, .GET, url) }
                        }
                        try await group.waitForAll()
                    }
                }
            }
        }
        // Kill while recording is under way: once a first save is on disk (however slow a busy
        // machine is), a little later, in the middle of further exchanges and saves.
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: cassette.path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(400))
        server.signal(SIGKILL)
        #expect(server.waitForExit() == SIGKILL || server.process.terminationReason == .uncaughtSignal)
        load.cancel()
        _ = try? await load.value
        try await upstream.stop()
        let stored = try CassetteCodec().load(cassette)
        #expect(!stored.interactions.isEmpty)
        for interaction in stored.interactions {
            let size = Int(interaction.request.url.split(separator: "=").last ?? "") ?? -1
            #expect(interaction.response.body.data == TestUpstream.downloadBody(size: size))
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") || $0.hasSuffix(".tmp") }
        #expect(leftovers.count <= 1)
    }

    @Test func badRecordOptionsExitTwo() async throws {
        let binary = try TapedeckBinary.locate()
        for arguments in [["--mode", "sometimes"], ["--target", "ftp://x"], ["--upstream-ca", "/nonexistent.pem"], ["--redact-json-path", "bad["]] {
            let result = try await Subprocess.run(executable: binary.path, arguments: ["record", "/tmp/unused-\(UUID().uuidString).json", "--port", "0"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.error.contains("tapedeck record"))
        }
    }
}
