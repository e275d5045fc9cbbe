import Foundation
@_spi(Internals) import TapedeckCore
import TapedeckTestSupport
import Testing

/// Bodies of any size in bounded memory (SPEC 8a): the real `tapedeck record` and `tapedeck replay`
/// as child processes, a generated body streamed by a local upstream, the bytes compared piece by
/// piece and the child's peak resident memory (`VmHWM`) read from /proc while it runs.
///
/// The body is 4 MiB in every run (past the 1 MiB side-file threshold; a debug build hashes side
/// files slowly, and the other suites run beside this one), 1 GiB in the heavy suite
/// (`TAPEDECK_HARDENING=1`), or `TAPEDECK_LARGE_BODY_MIB` MiB; the gzip body is 4 MiB, 64 MiB in
/// the heavy suite. `TAPEDECK_BINARY` runs another build of `tapedeck` (a release build, say).
@Suite(.serialized) struct LargeBodyTests {
    /// The most resident memory either process may reach, in KiB.
    /// Under a sanitizer its shadow memory alone can pass 100 MiB: there only byte-exactness is checked.
    static let memoryLimitKiB = HardeningFixtures.sanitized ? Int.max : 100 * 1024

    /// The size of the large body.
    static let largeSize: Int = {
        if let mebibytes = Int(ProcessInfo.processInfo.environment["TAPEDECK_LARGE_BODY_MIB"] ?? "") { return mebibytes << 20 }
        return HardeningFixtures.heavy ? 1 << 30 : 4 << 20
    }()

    /// The size of the gzip-encoded body, decoded.
    static let gzipSize = HardeningFixtures.heavy ? 64 << 20 : 4 << 20

    @Test(.requires(.curl)) func largeBodyIsRecordedAndReplayedByteExactInBoundedMemory() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LargeBodyUpstream.start()
        defer { Task { await upstream.stop() } }
        let pattern = LargeBodyPattern(size: Self.largeSize)
        let cassette = directory.appending(path: "large.json")
        let downloaded = directory.appending(path: "downloaded.bin")

        // Recording: the body passes through the proxy to curl and into its side file.
        let (recordStatus, recordedPeak) = try await Self.record("/large/\(pattern.size)", from: upstream, into: cassette, to: downloaded)
        #expect(recordStatus == "200")
        #expect(try pattern.matches(fileAt: downloaded))

        // The cassette names a whole side file, byte-exact, named by its SHA-256; nothing half-written is left.
        let loaded = try CassetteCodec().load(cassette)
        #expect(loaded.interactions.count == 1)
        let file = try #require(loaded.interactions.first?.response.body.file)
        #expect(file.size == pattern.size)
        #expect(try pattern.matches(fileAt: file.url))
        #expect(try Curl.sha256(of: file.url) == file.digest)
        #expect(try Self.temporaryFiles(in: file.url.deletingLastPathComponent()).isEmpty)
        #expect(!(try String(contentsOf: cassette, encoding: .utf8)).contains("base64"))
        try FileManager.default.removeItem(at: downloaded)

        // Replay: starts without reading the side file and streams it from disk.
        let small = try Self.startReplay(HardeningFixtures.exampleCassette)
        small.process.stop()
        let large = try Self.startReplay(cassette)
        let replayPeak = PeakMemory(large.process)
        let replayStatus = try Curl.download("http://127.0.0.1:\(large.port)/large/\(pattern.size)", to: downloaded)
        let replayedPeak = await replayPeak.finish(stopping: large.process)
        #expect(replayStatus == "200")
        #expect(try pattern.matches(fileAt: downloaded))

        #expect(recordedPeak < Self.memoryLimitKiB, "recording peaked at \(recordedPeak) KiB")
        #expect(replayedPeak < Self.memoryLimitKiB, "replay peaked at \(replayedPeak) KiB")
        let mebibytes = pattern.size >> 20
        let ratio = large.startup / max(small.startup, 0.001)
        print("LARGE-BODY \(mebibytes) MiB: record peak \(recordedPeak / 1024) MiB, replay peak \(replayedPeak / 1024) MiB, "
              + "replay start-up \(Int(large.startup * 1000)) ms vs \(Int(small.startup * 1000)) ms with a small cassette (\(String(format: "%.2f", ratio))x)")
        HardeningFixtures.report(scenario: "Record then replay a \(mebibytes) MiB body", amount: "1 download each",
                                 outcome: "byte-exact; peak RSS record \(recordedPeak / 1024) MiB, replay \(replayedPeak / 1024) MiB; "
                                     + "replay start-up \(String(format: "%.2f", ratio))x a small cassette's",
                                 lost: "nothing")
    }

    @Test(.requires(.curl)) func gzipBodyIsRecordedDecodedAsItPassesAndReplayedInBoundedMemory() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LargeBodyUpstream.start()
        defer { Task { await upstream.stop() } }
        let pattern = LargeBodyPattern(size: Self.gzipSize)
        let cassette = directory.appending(path: "gzip.json")
        let downloaded = directory.appending(path: "downloaded.gz")

        // The client asked for gzip and gets the upstream's gzip bytes, undecoded.
        let (recordStatus, recordedPeak) = try await Self.record("/large-gzip/\(pattern.size)", from: upstream, into: cassette,
                                                                 to: downloaded, extra: ["-H", "Accept-Encoding: gzip"])
        #expect(recordStatus == "200")
        let decoded = directory.appending(path: "decoded.bin")
        try Self.gunzip(downloaded, to: decoded)
        #expect(try pattern.matches(fileAt: decoded))

        // The cassette keeps the body decoded in its side file, and the Content-Encoding header.
        let interaction = try #require(try CassetteCodec().load(cassette).interactions.first)
        let file = try #require(interaction.response.body.file)
        #expect(!interaction.response.body.isEncoded)
        #expect(interaction.response.headers["Content-Encoding"] == "gzip")
        #expect(try pattern.matches(fileAt: file.url))
        #expect(try Curl.sha256(of: file.url) == file.digest)

        // Replay sends it decoded, without Content-Encoding, whatever the client accepts.
        let replay = try Self.startReplay(cassette)
        let replayPeak = PeakMemory(replay.process)
        let headers = directory.appending(path: "headers.txt")
        let replayStatus = try Curl.download("http://127.0.0.1:\(replay.port)/large-gzip/\(pattern.size)", to: downloaded,
                                             extra: ["-H", "Accept-Encoding: gzip", "-D", headers.path])
        let replayedPeak = await replayPeak.finish(stopping: replay.process)
        #expect(replayStatus == "200")
        #expect(try pattern.matches(fileAt: downloaded))
        let head = try String(contentsOf: headers, encoding: .utf8).lowercased()
        #expect(!head.contains("content-encoding"))
        #expect(head.contains("content-length: \(pattern.size)"))
        #expect(recordedPeak < Self.memoryLimitKiB, "recording peaked at \(recordedPeak) KiB")
        #expect(replayedPeak < Self.memoryLimitKiB, "replay peaked at \(replayedPeak) KiB")
        print("LARGE-BODY gzip \(pattern.size >> 20) MiB: record peak \(recordedPeak / 1024) MiB, replay peak \(replayedPeak / 1024) MiB")
    }

    /// A JSON body past ``Body/wholeReadLimit`` (the most redaction reads whole) is redacted piece by
    /// piece as its side file is installed (SPEC 7 and 8a), and a `--secret` value is replaced in it
    /// wherever it appears, across the pieces' edges too: the client gets the secrets, the cassette
    /// never does, and everything else in the body is kept byte for byte.
    @Test(.requires(.curl)) func largeJSONBodyIsRedactedInItsSideFile() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LargeBodyUpstream.start()
        defer { Task { await upstream.stop() } }
        let size = Body.wholeReadLimit + (HardeningFixtures.heavy ? 224 << 20 : 1 << 20)
        let cassette = directory.appending(path: "json.json")
        let downloaded = directory.appending(path: "downloaded.json")

        // Every item's text holds the word "bracketed": made a secret, it stands for a value found all over the body.
        let (status, recordedPeak) = try await Self.record("/large-json/\(size)", from: upstream, into: cassette, to: downloaded,
                                                           recorderArguments: ["--secret", "WORD=TAPEDECK_LARGE_JSON_WORD"],
                                                           environment: ["TAPEDECK_LARGE_JSON_WORD": "bracketed"])
        #expect(status == "200")
        let received = try Data(contentsOf: downloaded)
        #expect(received.count > size)
        #expect(received.occurrences(of: LargeJSONDocument.firstSecret) == 1 && received.occurrences(of: LargeJSONDocument.lastSecret) == 1)

        let file = try #require(try CassetteCodec().load(cassette).interactions.first?.response.body.file)
        let stored = try Data(contentsOf: file.url)
        let expected = received
            .replacing(Data(#""\#(LargeJSONDocument.firstSecret)""#.utf8), with: Data(#""<redacted>""#.utf8))
            .replacing(Data(#""\#(LargeJSONDocument.lastSecret)""#.utf8), with: Data(#""<redacted>""#.utf8))
            .replacing(Data("bracketed".utf8), with: Data("<WORD>".utf8))
        #expect(stored.occurrences(of: LargeJSONDocument.firstSecret) == 0 && stored.occurrences(of: LargeJSONDocument.lastSecret) == 0)
        #expect(received.occurrences(of: "bracketed") > 100_000 && stored.occurrences(of: "bracketed") == 0)
        #expect(stored == expected, "the side file is the body with the two secrets redacted, the word replaced and nothing else changed")
        #expect(try Curl.sha256(of: file.url) == file.digest)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.url.deletingLastPathComponent().path)
        #expect(leftovers == [file.url.lastPathComponent], "no unredacted file stays beside it")
        #expect(recordedPeak < Self.memoryLimitKiB, "recording peaked at \(recordedPeak) KiB")
        print("LARGE-BODY json \(size >> 20) MiB: redacted in its side file, record peak \(recordedPeak / 1024) MiB")
    }

    @Test(.requires(.curl)) func clientLeavingMidBodyLeavesNoSideFileAndRecorderRuns() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LargeBodyUpstream.start()
        defer { Task { await upstream.stop() } }
        let cassette = directory.appending(path: "gone.json")
        let recorder = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"])
        let port = try recorder.waitUntilListening()

        // Past the side-file threshold (1 MiB), then gone.
        let socket = try RawSocket(port: port)
        socket.send("GET /large/\(256 << 20) HTTP/1.1\r\nHost: x\r\n\r\n")
        let partial = await socket.read { $0.count >= 8 << 20 }
        socket.hangUp()
        #expect(partial.ending == .satisfied)
        let bodies = directory.appending(path: "gone.bodies")
        // The exchange notices the client left once its next write fails; wait for its spool to go.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !(try Self.temporaryFiles(in: bodies)).isEmpty { try await Task.sleep(for: .milliseconds(100)) }

        let after = try Curl.download("http://127.0.0.1:\(port)/small", to: directory.appending(path: "small.txt"))
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit(timeout: 60) == 0)
        let log = recorder.stop()

        #expect(after == "200")
        #expect(log.contains("not recorded: GET") && log.contains("the client left"))
        let interactions = try CassetteCodec().load(cassette).interactions
        #expect(interactions.map { $0.request.target.path } == ["/small"])
        #expect(try Self.temporaryFiles(in: bodies).isEmpty)
        let sideFiles = (try? FileManager.default.contentsOfDirectory(atPath: bodies.path)) ?? []
        #expect(sideFiles.isEmpty, "left in the bodies folder: \(sideFiles)")
    }

    @Test(.requires(.curl)) func bodyThatCannotBeKeptStillReachesTheClientAndIsNotRecorded() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LargeBodyUpstream.start()
        defer { Task { await upstream.stop() } }
        let cassette = directory.appending(path: "blocked.json")
        // A file where the bodies folder goes: no side file can be written.
        try Data("not a folder".utf8).write(to: directory.appending(path: "blocked.bodies"))
        let pattern = LargeBodyPattern(size: 4 << 20)
        let recorder = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"])
        let port = try recorder.waitUntilListening()

        let downloaded = directory.appending(path: "downloaded.bin")
        let status = try Curl.download("http://127.0.0.1:\(port)/large/\(pattern.size)", to: downloaded)
        let after = try Curl.download("http://127.0.0.1:\(port)/small", to: directory.appending(path: "small.txt"))
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit(timeout: 60) == 0)
        let log = recorder.stop()

        #expect(status == "200" && after == "200")
        #expect(try pattern.matches(fileAt: downloaded))
        #expect(log.contains("not recorded: GET") && log.contains("the body could not be kept"), "\(log)")
        #expect(try CassetteCodec().load(cassette).interactions.map { $0.request.target.path } == ["/small"])
    }

    /// Decodes a gzip file into another, piece by piece.
    static func gunzip(_ source: URL, to destination: URL) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
        let output = try FileHandle(forWritingTo: destination)
        defer { try? output.close() }
        let decoder = ContentCodingStream(decoding: .gzip, limit: nil)
        while let piece = try input.read(upToCount: 1 << 20), !piece.isEmpty { try decoder.update(piece) { try output.write(contentsOf: $0) } }
        try decoder.finish { try output.write(contentsOf: $0) }
    }

    /// The hidden temporary files of spools in a bodies folder (none when there is no folder).
    static func temporaryFiles(in folder: URL) throws -> [String] {
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
    }

    /// Records `path` from `upstream` into `cassette` through `tapedeck record`, curl saving the
    /// answer to `file`, then stops the recorder; returns curl's status and the recorder's peak
    /// resident memory in KiB.
    static func record(_ path: String, from upstream: LargeBodyUpstream, into cassette: URL, to file: URL,
                       extra: [String] = [], recorderArguments: [String] = [],
                       environment: [String: String] = [:]) async throws -> (status: String, peakKiB: Int) {
        let recorder = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"] + recorderArguments,
                                           environment: environment)
        let peak = PeakMemory(recorder)
        let port = try recorder.waitUntilListening()
        let status = try Curl.download("http://127.0.0.1:\(port)\(path)", to: file, extra: extra)
        peak.sample()
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit(timeout: 600) == 0)
        let peakKiB = await peak.finish()
        #expect(peakKiB > 0, "the recorder's memory was read")
        return (status, peakKiB)
    }

    /// Starts `tapedeck replay CASSETTE` and measures the time until it listens.
    static func startReplay(_ cassette: URL) throws -> (process: TapedeckProcess, port: Int, startup: Double) {
        let started = Date()
        let process = try TapedeckProcess(["replay", cassette.path, "--port", "0"])
        let port = try process.waitUntilListening()
        return (process, port, Date().timeIntervalSince(started))
    }
}

/// Follows a child's peak resident memory (`VmHWM`) while it runs.
final class PeakMemory: @unchecked Sendable {
    private let process: TapedeckProcess
    private let peak = Locked(0)
    private let polling: Task<Void, Never>

    init(_ process: TapedeckProcess) {
        self.process = process
        let peak = peak
        polling = Task.detached {
            while !Task.isCancelled, let kibibytes = process.peakResidentKiB() {
                peak.withLock { $0 = max($0, kibibytes) }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Reads the peak now, so a process that exits before the poller ran is still measured.
    func sample() {
        if let kibibytes = process.peakResidentKiB() { peak.withLock { $0 = max($0, kibibytes) } }
    }

    /// The peak once the process exited (or after `stopping` it with SIGTERM, read just before).
    func finish(stopping stopped: TapedeckProcess? = nil) async -> Int {
        if let stopped, let last = stopped.peakResidentKiB() { peak.withLock { $0 = max($0, last) } }
        stopped?.stop()
        polling.cancel()
        await polling.value
        return peak.withLock { $0 }
    }
}

/// curl and sha256sum, run as child processes.
enum Curl {
    /// Downloads `url` to `file` and returns the status code curl saw.
    static func download(_ url: String, to file: URL, extra: [String] = []) throws -> String {
        try run("/usr/bin/curl", ["-s", "-o", file.path, "-w", "%{http_code}", "--max-time", "600"] + extra + [url])
    }

    /// Uploads `file` as `application/octet-stream` with curl's extra `arguments`; the status and the answer's body.
    static func upload(_ file: URL, to url: String, _ arguments: [String]) throws -> (status: String, body: String) {
        let text = try run("/usr/bin/curl", ["-s", "--max-time", "600", "-H", "Content-Type: application/octet-stream",
                                             "--data-binary", "@\(file.path)", "-w", "\n%{http_code}"] + arguments + [url])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
    }

    /// The SHA-256 of a file in hexadecimal, by coreutils.
    static func sha256(of file: URL) throws -> String {
        String(try run("/usr/bin/sha256sum", [file.path]).prefix(64))
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> String {
        String(decoding: try ChildProcess.run(URL(filePath: tool), arguments, mergingErrors: false).standardOutput, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
