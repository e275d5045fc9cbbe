import Foundation
import Testing
@testable import TapedeckCore

@Suite("Recording: modes, durability, atomic and linear saving")
struct RecorderTests {
    func exchange(_ number: Int, path: String = "/item") -> Interaction {
        interaction(request("GET", "http://api.example.test\(path)?n=\(number)", headers: ["Connection": "keep-alive", "Authorization": "Bearer x"]),
                    body: "answer \(number)", headers: ["Content-Type": "text/plain", "Transfer-Encoding": "chunked"])
    }

    @Test("a recorded interaction is on disk within one second, redacted and without hop-by-hop headers")
    func durableAndClean() async throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("rec.json")
        let recorder = try Recorder(file: file, mode: .all)
        try recorder.record(exchange(1))
        let deadline = ContinuousClock.now + .seconds(1)
        while !FileManager.default.fileExists(atPath: file.path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let saved = try CassetteCodec().load(file)
        #expect(saved.interactions.count == 1)
        #expect(saved.interactions[0].request.headers["Authorization"] == "<redacted>")
        #expect(!saved.interactions[0].request.headers.contains("Connection"))
        #expect(!saved.interactions[0].response.headers.contains("Transfer-Encoding"))
    }

    @Test("one recorder at a time records a cassette, by whatever name; replaying it meanwhile is fine")
    func oneRecorderAtATime() throws {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("shared.json")
        let first = try Recorder(file: file, mode: .newEpisodes)
        try first.record(exchange(1))
        // Each saves the cassette as it read it plus its own: before, the later save lost the earlier's.
        let link = folder.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: folder)
        for name in [file, link.appendingPathComponent("shared.json"), folder.appendingPathComponent("./shared.json")] {
            #expect { try Recorder(file: name, mode: .newEpisodes) } throws: {
                "\($0)".contains("is being recorded by another recorder (process \(ProcessInfo.processInfo.processIdentifier))")
            }
        }
        try first.flush()
        #expect(try Recorder(file: file, mode: .replay).isRecording == false)
        try first.finish()
        let second = try Recorder(file: file, mode: .newEpisodes)
        try second.record(exchange(2))
        try second.finish()
        #expect(try CassetteCodec().load(file).interactions.count == 2)
    }

    #if os(Linux)
    /// A child process forked while a recorder holds its lock gets a copy of the lock's descriptor
    /// and keeps it until it starts its own program. Closing the recorder's descriptor alone left
    /// the lock held through that copy: a clean-clone CI run refused a recorder opened right after
    /// another's `finish()`, naming its own process. `dup` makes the same copy, deterministically.
    @Test("finish gives the lock back even while a forked child still holds a copy of its descriptor")
    func lockIsGivenBackWhileACopyOfItsDescriptorIsOpen() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("forked.json")
        let first = try Recorder(file: file, mode: .newEpisodes)
        let lockFile = CassetteLock.lockFile(for: file).resolvingSymlinksInPath().path
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap(Int32.init)
        let held = try #require(descriptors.first { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == lockFile })
        let copy = dup(held)
        try #require(copy >= 0)
        defer { close(copy) }
        try first.finish()
        let second = try Recorder(file: file, mode: .newEpisodes)
        try second.finish()
    }
    #endif

    @Test("a first recording into a folder that does not exist yet makes the folder")
    func missingFolderIsMade() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("cassettes/nested/first.json")
        let recorder = try Recorder(file: file, mode: .all)
        try recorder.record(exchange(1))
        try recorder.flush()
        #expect(try CassetteCodec().load(file).interactions.count == 1)
    }

    @Test("saves are coalesced: many interactions cost a few saves, never one per interaction")
    func linearSaving() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("many.json")
        let writer = CassetteWriter(file: file, codec: CassetteCodec(), meta: CassetteMeta(), existing: [],
                                    flushDelay: .seconds(30), keepsSpare: false, onError: { _ in })
        for number in 0..<2000 { writer.append(exchange(number)) }
        try writer.flush()
        #expect(writer.saveCount == 1)
        let saved = try CassetteCodec().load(file)
        #expect(saved.interactions.map(\.response.body.text) == (0..<2000).map { "answer \($0)" })
    }

    @Test("the file on disk always parses while recording: atomic replacement, no temporary files left")
    func atomicWhileRecording() async throws {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("atomic.json")
        let recorder = try Recorder(file: file, mode: .all, flushDelay: .milliseconds(1))
        let reader = Task {
            var reads = 0
            while !Task.isCancelled {
                if let data = FileManager.default.contents(atPath: file.path) {
                    _ = try CassetteCodec().decode(data)
                    reads += 1
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
            return reads
        }
        for number in 0..<300 {
            try recorder.record(exchange(number))
            if number % 30 == 0 { try await Task.sleep(for: .milliseconds(3)) }
        }
        try recorder.flush()
        reader.cancel()
        #expect(try await reader.value > 0)
        #expect(try CassetteCodec().load(file).interactions.count == 300)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["atomic.json"])
    }

    @Test("with a spare file, saves append: each holds every interaction in order, byte for byte as a whole save")
    func spareFileSaving() throws {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("long.json")
        try CassetteCodec().save(cassette([exchange(0)]), to: file)
        let recorder = try Recorder(file: file, mode: .newEpisodes, flushDelay: .seconds(30), keepsSpareFile: true)
        for round in 1...4 {
            for number in (round * 10)..<(round * 10 + 10) { try recorder.record(exchange(number)) }
            try recorder.flush()
            let saved = try CassetteCodec().load(file)
            #expect(saved.interactions.map(\.response.body.text) == ["answer 0"] + (10..<(round * 10 + 10)).map { "answer \($0)" })
            #expect(try Data(contentsOf: file) == CassetteCodec().encode(saved).bytes)
            #expect(recorder.interactionCount == 1 + round * 10)
        }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".long.json.spare").path))
        try recorder.finish()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["long.json"])
    }

    @Test("a long recording with a spare file forgets what both files hold and still saves every interaction in order")
    func spareFileReleasesSavedFragments() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("longer.json")
        let recorder = try Recorder(file: file, mode: .all, flushDelay: .seconds(30), keepsSpareFile: true)
        for round in 1...4 {
            for number in ((round - 1) * 5000)..<(round * 5000) { try recorder.record(exchange(number)) }
            try recorder.flush()
            let bodies = try CassetteCodec().load(file).interactions.map(\.response.body.text)
            #expect(bodies == (0..<(round * 5000)).map { "answer \($0)" })
        }
        try recorder.finish()
    }

    @Test("new-episodes replays what matches and records the rest after the earlier interactions")
    func newEpisodes() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("ne.json")
        try CassetteCodec().save(cassette([exchange(1)]), to: file)
        let recorder = try Recorder(file: file, mode: .newEpisodes)
        guard case .replay = recorder.route(exchange(1).request) else { Issue.record("expected replay"); return }
        guard case .forward = recorder.route(exchange(2).request) else { Issue.record("expected forward"); return }
        try recorder.record(exchange(2))
        // What was recorded in this run is not served back in the same run.
        guard case .forward = recorder.route(exchange(2).request) else { Issue.record("expected forward again"); return }
        try recorder.flush()
        #expect(try CassetteCodec().load(file).interactions.map(\.response.body.text) == ["answer 1", "answer 2"])
    }

    @Test("all forwards everything into a fresh cassette")
    func all() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("all.json")
        try CassetteCodec().save(cassette([exchange(1)]), to: file)
        let recorder = try Recorder(file: file, mode: .all)
        guard case .forward = recorder.route(exchange(1).request) else { Issue.record("expected forward"); return }
        try recorder.record(exchange(3))
        try recorder.flush()
        #expect(try CassetteCodec().load(file).interactions.map(\.response.body.text) == ["answer 3"])
    }

    @Test("once records a missing cassette and is pure replay once it exists")
    func once() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("once.json")
        let first = try Recorder(file: file, mode: .once)
        #expect(first.isRecording)
        try first.record(exchange(1))
        try first.flush()
        let second = try Recorder(file: file, mode: .once)
        #expect(!second.isRecording)
        guard case .unmatched(let diagnosis) = second.route(exchange(9).request) else { Issue.record("expected a miss"); return }
        #expect(diagnosis.reason == .noMatch)
        #expect(throws: CassetteError.self) { try second.record(exchange(9)) }
    }

    @Test("replay mode refuses a missing cassette with the way to record it")
    func replayMissing() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("absent.json")
        let error = try #require(throws: CassetteError.self) { try Recorder(file: file, mode: .replay) }
        #expect(error.description.contains("record it first"))
    }

    @Test("a broken cassette is refused before anything is recorded over it")
    func brokenCassette() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("broken.json")
        try Data("{\"version\": 1, \"interactions\": [".utf8).write(to: file)
        #expect(throws: CassetteError.self) { try Recorder(file: file, mode: .newEpisodes) }
        #expect(try Data(contentsOf: file) == Data("{\"version\": 1, \"interactions\": [".utf8))
    }

    @Test("a failed save is reported and retried; nothing acknowledged is lost")
    func saveFailure() throws {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("sub/rec.json")
        // A file where the cassette's folder goes: the folder cannot be made, the save fails.
        let blocker = folder.appendingPathComponent("sub")
        try Data("not a folder".utf8).write(to: blocker)
        let recorder = try Recorder(file: file, mode: .all, flushDelay: .seconds(30))
        try recorder.record(exchange(1))
        let error = try #require(throws: CassetteError.self) { try recorder.flush() }
        #expect(error.description.contains("sub/rec.json"))
        try FileManager.default.removeItem(at: blocker)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try recorder.record(exchange(2))
        try recorder.flush()
        #expect(try CassetteCodec().load(file).interactions.count == 2)
    }

    @Test("a large body whose side file cannot be written yet is written by the next save, not lost")
    func sideFileRetried() throws {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("big.json")
        let blocker = folder.appendingPathComponent("big.bodies")
        try Data("a file where the bodies folder goes".utf8).write(to: blocker)
        let recorder = try Recorder(file: file, mode: .all, codec: CassetteCodec(sideFileThreshold: 16), flushDelay: .seconds(30))
        var big = exchange(1)
        big.response.body = Body(text: String(repeating: "large body ", count: 10))
        try recorder.record(big)
        #expect(throws: CassetteError.self) { try recorder.flush() }
        try FileManager.default.removeItem(at: blocker)
        try recorder.record(exchange(2))
        try recorder.flush()
        let saved = try CassetteCodec().load(file)
        #expect(saved.interactions.map(\.response.body.text) == [String(repeating: "large body ", count: 10), "answer 2"])
    }

    @Test("TAPEDECK_MODE overrides the mode; record means all")
    func environmentMode() throws {
        #expect(try RecordMode.fromEnvironment(["TAPEDECK_MODE": "record"], default: .replay) == .all)
        #expect(try RecordMode.fromEnvironment(["TAPEDECK_MODE": "new-episodes"], default: .replay) == .newEpisodes)
        #expect(try RecordMode.fromEnvironment([:], default: .once) == .once)
        #expect(throws: RecordModeError.self) { try RecordMode.fromEnvironment(["TAPEDECK_MODE": "sometimes"], default: .once) }
    }
}
