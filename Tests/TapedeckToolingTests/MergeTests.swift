import Foundation
import Testing
import TapedeckCore
@testable import TapedeckTooling
import TapedeckTestSupport

@Suite("merge")
struct MergeTests {
    @Test("merging keeps every cassette's order and the order given")
    func mergeKeepsOrder() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let first = try Interactions.write([Interactions.get("http://h/1", answer: "a"), Interactions.get("http://h/2", answer: "b")],
                                           to: folder, name: "a.json")
        let second = try Interactions.write([Interactions.get("http://h/3", answer: "c")], to: folder, name: "b.json")
        let merged = try CassetteMerger().merge([second, first])
        #expect(merged.interactions.map(\.request.url) == ["http://h/3", "http://h/1", "http://h/2"])
    }

    @Test("a cassette of another format version is refused, naming it")
    func incompatibleVersionIsRefused() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let good = try Interactions.write([Interactions.get("http://h/1", answer: "a")], to: folder, name: "a.json")
        let future = folder.appendingPathComponent("future.json")
        try Data("{\"version\": 2, \"interactions\": [], \"meta\": {}}".utf8).write(to: future)
        do {
            _ = try CassetteMerger().merge([good, future])
            Issue.record("expected a refusal")
        } catch {
            #expect(error.kind == .incompatibleVersion(2))
            #expect(error.description.contains("future.json"))
        }
        let output = folder.appendingPathComponent("out.json")
        let outcome = try ToolingTestSupport.tapedeck("merge", good.path, future.path, "-o", output.path)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("version 2 cannot be merged"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("tapedeck merge writes the combined cassette, which may be one of its inputs")
    func commandMergesInPlace() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let first = try Interactions.write([Interactions.get("http://h/1", answer: "a")], to: folder, name: "a.json")
        let second = try Interactions.write([Interactions.get("http://h/2", answer: "b")], to: folder, name: "b.json")
        let outcome = try ToolingTestSupport.tapedeck("merge", first.path, second.path, "-o", first.path)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try CassetteCodec().load(first).interactions.map(\.request.url) == ["http://h/1", "http://h/2"])
        #expect(try ToolingTestSupport.tapedeck("merge", first.path, "-o", first.path).status == 2)
    }

    @Test("tapedeck merge killed in the middle of writing leaves the previous output or the whole merge")
    func interruptedMergeLeavesWholeCassette() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let padding = String(repeating: "dolor sit amet ", count: 200)
        let big = (0..<3000).map { Interactions.get("http://h/items/\($0)", answer: "\($0) \(padding)") }
        let first = try Interactions.write(Array(big[..<1500]), to: folder, name: "a.json")
        let second = try Interactions.write(Array(big[1500...]), to: folder, name: "b.json")
        let output = try Interactions.write([Interactions.get("http://h/previous", answer: "old")], to: folder, name: "out.json")
        let before = try Data(contentsOf: output)

        let killedMidWrite = try ToolingTestSupport.tapedeckKilledWhileWriting(output, ["merge", first.path, second.path, "-o", output.path])
        #expect(killedMidWrite, "tapedeck was never caught writing its temporary file")
        let loaded = try CassetteCodec().load(output)
        if try Data(contentsOf: output) == before {
            #expect(loaded.interactions.map(\.request.url) == ["http://h/previous"])
        } else {
            #expect(loaded.interactions == big)
        }
    }

    @Test("tapedeck merge whose write fails exits 1 and keeps the previous output", .requires(.python3))
    func failedMergeKeepsPreviousOutput() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let padding = String(repeating: "dolor sit amet ", count: 80)
        let big = (0..<1500).map { Interactions.get("http://h/items/\($0)", answer: "\($0) \(padding)") }
        let first = try Interactions.write(Array(big[..<750]), to: folder, name: "a.json")
        let second = try Interactions.write(Array(big[750...]), to: folder, name: "b.json")
        let output = try Interactions.write([Interactions.get("http://h/previous", answer: "old")], to: folder, name: "out.json")
        let before = try Data(contentsOf: output)

        let outcome = try ToolingTestSupport.tapedeckWithFileSizeLimit(1_000_000, ["merge", first.path, second.path, "-o", output.path])
        #expect(outcome.status == 1 && !outcome.killedBySignal, "\(outcome.stderr)")
        #expect(try Data(contentsOf: output) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["a.json", "b.json", "out.json"])
    }
}
