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
    @Test func recordSavesEverythingAndExitsZeroOnSigint() async throws {
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
