import Foundation
import Testing
import TapedeckCore
@testable import TapedeckTooling
import TapedeckTestSupport

@Suite("redact")
struct RedactTests {
    static func secretCassette() -> Cassette {
        Cassette(meta: CassetteMeta(createdAt: "2026-11-21T10:00:00.000Z", recordedWith: "test"), interactions: [
            Interactions.get("http://h/a?api_key=k123&page=2", answer: "x",
                             headers: ["Authorization": ToolingTestSupport.FakeSecret.bearer, "X-Tenant": "acme"]),
            Interactions.postJSON("http://h/login", body: "{\"user\":\"a\",\"password\":\"pw\",\"ssn\":\"123\"}"),
        ])
    }

    @Test("the default and the given rules are applied, and each change is reported with its place")
    func rulesApplyAndChangesAreReported() throws {
        let rules = RedactionRules.defaults.adding(headers: ["X-Tenant"], queryParameters: [], jsonPaths: [try JSONPath("$.ssn")])
        let (redacted, changes) = CassetteRedaction(rules: rules).apply(to: Self.secretCassette())
        #expect(changes == ["interactions[0]: request header Authorization", "interactions[0]: request header X-Tenant",
                            "interactions[0]: query parameters", "interactions[1]: request body $..password, $.ssn"])
        #expect(redacted.interactions[0].request.headers["Authorization"] == Redactor.placeholder)
        #expect(redacted.interactions[0].request.url == "http://h/a?api_key=\(Redactor.placeholder)&page=2")
        let body = try #require(redacted.interactions[1].request.body.text)
        #expect(body.contains("\"password\":\"\(Redactor.placeholder)\"") && body.contains("\"user\":\"a\""))
        #expect(CassetteRedaction(rules: rules).apply(to: redacted).changes.isEmpty, "redacting twice changes nothing")
    }

    @Test("--no-default-redactions applies only the rules given")
    func noDefaultsAppliesOnlyGivenRules() throws {
        let rules = RedactionRules.none.adding(headers: ["X-Tenant"], queryParameters: [], jsonPaths: [])
        let (redacted, changes) = CassetteRedaction(rules: rules).apply(to: Self.secretCassette())
        #expect(changes == ["interactions[0]: request header X-Tenant"])
        #expect(redacted.interactions[0].request.headers["Authorization"] == ToolingTestSupport.FakeSecret.bearer)
    }

    @Test("a JSON path that does not parse is refused by the command line, naming the option")
    func badJSONPathIsBadInput() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("c.json")
        try CassetteCodec().save(Self.secretCassette(), to: file)
        let result = try ToolingTestSupport.tapedeck("redact", file.path, "--redact-json-path", "ssn")
        #expect(result.status == 2)
        #expect(result.stderr.contains("--redact-json-path"))
    }

    @Test("tapedeck redact rewrites the cassette, reports changes, and lint finds it clean afterwards")
    func commandRedactsInPlace() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("c.json")
        try CassetteCodec().save(Self.secretCassette(), to: file)
        let first = try ToolingTestSupport.tapedeck("redact", file.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("interactions[0]: request header Authorization"))
        #expect(first.stdout.contains("3 changes written"))
        let second = try ToolingTestSupport.tapedeck("redact", file.path)
        #expect(second.stdout.contains("nothing to redact"))
        #expect(CassetteLinter().lint(file: file) == [])
    }

    @Test("tapedeck redact leaves no unredacted side file behind: the one it rewrote is removed, the others kept")
    func commandRemovesTheSideFileItRewrote() throws {
        let padding = String(repeating: "p", count: 4096)
        let secretBody = #"{"password": "hunter2-side", "padding": "\#(padding)"}"#
        let plainBody = #"{"name": "kept", "padding": "\#(padding)"}"#
        let file = try ToolingTestSupport.cassetteWithSideFiles([
            Interactions.postJSON("http://h/login", body: "{}", answer: secretBody),
            Interactions.postJSON("http://h/plain", body: "{}", answer: plainBody),
        ])
        let bodies = file.deletingLastPathComponent().appendingPathComponent("c.bodies")
        let before = try FileManager.default.contentsOfDirectory(atPath: bodies.path)
        #expect(before.count == 2)

        let result = try ToolingTestSupport.tapedeck("redact", file.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("removed"))
        let after = try FileManager.default.contentsOfDirectory(atPath: bodies.path)
        for name in after {
            let holdsSecret = try String(contentsOf: bodies.appendingPathComponent(name), encoding: .utf8).contains("hunter2-side")
            #expect(!holdsSecret, "\(name) still holds the secret")
        }
        let loaded = try CassetteCodec().load(file)
        #expect(try #require(loaded.interactions[0].response.body.text).contains(Redactor.placeholder))
        #expect(loaded.interactions[1].response.body.text == plainBody)
        let kept = try #require(loaded.interactions[1].response.body.file, "the body nothing redacts stays in its side file")
        #expect(before.contains(kept.url.lastPathComponent) && after.contains(kept.url.lastPathComponent))
    }

    @Test("tapedeck redact redacts a JSON side file past 32 MiB piece by piece; a dry run writes nothing")
    func commandRedactsALargeSideFile() throws {
        let large = #"{"padding": "\#(String(repeating: "p", count: Body.wholeReadLimit))", "user": {"ssn": "123-45-6789"}}"#
        let file = try ToolingTestSupport.cassetteWithSideFiles([Interactions.postJSON("http://h/export", body: "{}", answer: large)])
        let bodies = file.deletingLastPathComponent().appendingPathComponent("c.bodies")
        func sideFiles() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: bodies.path).sorted() }
        let before = try sideFiles()
        #expect(before.count == 1)

        let dry = try ToolingTestSupport.tapedeck("redact", file.path, "--redact-json-path", "$.user.ssn", "--dry-run")
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("interactions[0]: response body $.user.ssn"), "\(dry.stdout)")
        #expect(dry.stdout.contains("dry run, not written"))
        #expect(try sideFiles() == before, "a dry run leaves the bodies folder as it was")

        let result = try ToolingTestSupport.tapedeck("redact", file.path, "--redact-json-path", "$.user.ssn")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("interactions[0]: response body $.user.ssn"), "\(result.stdout)")
        #expect(result.stdout.contains("removed \(before[0])"))
        let after = try sideFiles()
        #expect(after.count == 1 && after != before)
        let redacted = try Data(contentsOf: bodies.appendingPathComponent(after[0]))
        #expect(redacted.range(of: Data("123-45-6789".utf8)) == nil, "the secret is gone from the side file")
        let end = Data(#"ppp", "user": {"ssn": "\#(Redactor.placeholder)"}}"#.utf8)
        #expect(redacted.count == large.utf8.count - "123-45-6789".count + Redactor.placeholder.count && redacted.suffix(end.count) == end,
                "every other byte kept as it came")
        let loaded = try CassetteCodec().load(file)
        #expect(loaded.interactions[0].response.body.file?.url.lastPathComponent == after[0])

        let again = try ToolingTestSupport.tapedeck("redact", file.path, "--redact-json-path", "$.user.ssn")
        #expect(again.stdout.contains("nothing to redact"), "redacting twice changes nothing: \(again.stdout)")
        #expect(try sideFiles() == after)
    }

    @Test("when one cassette does not load, tapedeck redact writes none of them and exits 2")
    func commandWritesNothingOnBadInput() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let good = folder.appendingPathComponent("good.json")
        try CassetteCodec().save(Self.secretCassette(), to: good)
        let before = try Data(contentsOf: good)
        let broken = folder.appendingPathComponent("broken.json")
        try Data("{\"version\": 1, \"interactions\": [}".utf8).write(to: broken)
        let outcome = try ToolingTestSupport.tapedeck("redact", good.path, broken.path)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("broken.json:1:"))
        #expect(try Data(contentsOf: good) == before)
    }

    @Test("tapedeck redact killed in the middle of writing leaves the original or the new cassette, never half of one")
    func interruptedRedactLeavesWholeCassette() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("big.json")
        let padding = String(repeating: "lorem ipsum ", count: 250)
        let interactions = (0..<3000).map { index in
            Interactions.get("http://h/items/\(index)", answer: "\(index) \(padding)",
                             headers: ["Authorization": ToolingTestSupport.FakeSecret.bearer])
        }
        try CassetteCodec().save(Cassette(interactions: interactions), to: file)
        let before = try Data(contentsOf: file)
        #expect(before.count > 8_000_000)

        let killedMidWrite = try ToolingTestSupport.tapedeckKilledWhileWriting(file, ["redact", file.path])
        #expect(killedMidWrite, "tapedeck was never caught writing its temporary file")
        let after = try Data(contentsOf: file)
        if after != before {
            // The rename won the race: then the new cassette must be complete.
            let loaded = try CassetteCodec().load(file)
            #expect(loaded.interactions.count == 3000)
            #expect(loaded.interactions.allSatisfy { $0.request.headers["Authorization"] == Redactor.placeholder })
        }
        #expect(try CassetteCodec().load(file).interactions.count == 3000)
    }

    @Test("tapedeck redact leaves a cassette being recorded as it is and exits 1: the recorder's next save would undo it")
    func aCassetteBeingRecordedIsLeftAlone() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("live.json")
        try CassetteCodec().save(Self.secretCassette(), to: file)
        let before = try Data(contentsOf: file)
        let recorder = try Recorder(file: file, mode: .newEpisodes)
        let refused = try ToolingTestSupport.tapedeck("redact", file.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("live.json: is being recorded by another recorder (process \(ProcessInfo.processInfo.processIdentifier))"),
                "\(refused.stderr)")
        #expect(try Data(contentsOf: file) == before)
        try recorder.finish()
        #expect(try ToolingTestSupport.tapedeck("redact", file.path).status == 0)
        #expect(try Data(contentsOf: file) != before)
    }

    @Test("tapedeck redact whose write fails exits 1, keeps the original and leaves no temporary file", .requires(.python3))
    func failedWriteKeepsOriginal() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("big.json")
        let padding = String(repeating: "lorem ipsum ", count: 100)
        let interactions = (0..<1500).map { index in
            Interactions.get("http://h/items/\(index)", answer: "\(index) \(padding)",
                             headers: ["Cookie": "session=\(index)"])
        }
        try CassetteCodec().save(Cassette(interactions: interactions), to: file)
        let before = try Data(contentsOf: file)

        let outcome = try ToolingTestSupport.tapedeckWithFileSizeLimit(500_000, ["redact", file.path])
        #expect(outcome.status == 1 && !outcome.killedBySignal)
        #expect(outcome.stderr.contains("cannot write"))
        #expect(try Data(contentsOf: file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["big.json"])
    }
}
