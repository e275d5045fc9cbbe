import Foundation
import Testing
import TapedeckCore
@testable import TapedeckTooling

@Suite("inspect")
struct InspectTests {
    @Test("one line per interaction with method, URL, status, sizes and timing")
    func linesDescribeEachInteraction() throws {
        let cassette = try CassetteCodec().load(ToolingTestSupport.exampleCassette)
        let summaries = InteractionSummary.all(in: cassette)
        #expect(summaries.count == cassette.interactions.count)
        #expect(summaries[0].line == "0  GET http://api.example.test/plaintext?name=Shawn  200  req 0 B  resp 12 B  text/plain  0.6/0.6 ms")
        #expect(summaries[4].responseBytes == 462)
        let events = try #require(summaries.last)
        #expect(events.chunks == 3)
        #expect(events.line.contains("3 chunks"))
    }

    @Test("an interaction without timing says so")
    func missingTimingIsShown() {
        let summary = InteractionSummary(index: 2, interaction: Interactions.get("/a", answer: "x", timed: false))
        #expect(summary.line.hasSuffix("no timing"))
        #expect(summary.firstByteMs == nil)
    }

    @Test("the HTTP version and the trailers' names are shown")
    func versionAndTrailersAreShown() {
        var call = Interactions.get("/demo.Greeter/SayHello", answer: "hi", timed: false)
        call.httpVersion = "2"
        call.response.trailers = ["grpc-status": "0"]
        let summary = InteractionSummary(index: 0, interaction: call)
        #expect(summary.line.hasSuffix("no timing  HTTP/2  trailers grpc-status"), "\(summary.line)")
        #expect(summary.trailers == ["grpc-status"])
    }

    @Test("tapedeck inspect --json prints every interaction for scripts")
    func commandPrintsJSON() throws {
        let outcome = try ToolingTestSupport.tapedeck("inspect", ToolingTestSupport.exampleCassette.path, "--json")
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        let interactions = try #require(object?["interactions"] as? [[String: Any]])
        #expect(interactions.count == 8)
        #expect(interactions[5]["url"] as? String == "http://api.example.test/gzip-json")
        #expect(interactions[6]["status"] as? Int == 404)
    }

    @Test("tapedeck inspect on a broken cassette names the file and place and exits 2")
    func commandRejectsBrokenCassette() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let broken = folder.appendingPathComponent("broken.json")
        try Data("{\n  \"version\": 1,\n  \"interactions\": [\n    {\"request\": }\n  ]\n}\n".utf8).write(to: broken)
        let outcome = try ToolingTestSupport.tapedeck("inspect", broken.path)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("broken.json:4:"))
    }
}
