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

    @Test("tapedeck inspect shows a WebSocket conversation's size and messages, in lines and in JSON")
    func webSocketConversation() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let file = folder.appendingPathComponent("chat.json")
        try Data(#"""
            {"version": 1, "interactions": [{
              "request": {"method": "GET", "url": "ws://127.0.0.1:9000/chat", "headers": {"Upgrade": ["websocket"]}},
              "response": {"status": 101, "headers": {"Upgrade": ["websocket"]}},
              "websocket": [
                {"from": "client", "atMs": 0, "text": "hello\nthere"},
                {"from": "server", "atMs": 3.5, "text": "hi"},
                {"from": "server", "atMs": 4, "base64": "AAEC"},
                {"from": "client", "atMs": 10, "close": 1000, "reason": "bye"}]}]}
            """#.utf8).write(to: file)
        let text = try ToolingTestSupport.tapedeck("inspect", file.path)
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 6, "\(text.stdout)")
        #expect(lines[1].hasPrefix("0  GET ws://127.0.0.1:9000/chat  101"), "\(lines)")
        #expect(lines[1].hasSuffix("websocket 4 messages 19 B"), "2 messages each way, 11 + 2 bytes of text, 3 of binary, 3 of reason: \(lines[1])")
        #expect(lines[2] == #"    0 ms  client text "hello\nthere""#, "\(lines)")
        #expect(lines[3] == #"    3.5 ms  server text "hi""#, "\(lines)")
        #expect(lines[4] == "    4 ms  server binary 3 bytes", "\(lines)")
        #expect(lines[5] == #"    10 ms  client close 1000 "bye""#, "\(lines)")

        let json = try ToolingTestSupport.tapedeck("inspect", "--json", file.path)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let interaction = try #require((object?["interactions"] as? [[String: Any]])?.first)
        let websocket = try #require(interaction["websocket"] as? [String: Any], "\(json.stdout)")
        #expect(websocket["messages"] as? Int == 4)
        #expect(websocket["bytes"] as? Int == 19)
        #expect(websocket["fromClient"] as? Int == 2)
        #expect(websocket["fromServer"] as? Int == 2)
        let conversation = try #require(websocket["conversation"] as? [[String: Any]])
        #expect(conversation.count == 4)
        #expect(conversation[0]["text"] as? String == "hello\nthere")
        #expect(conversation[2]["base64"] as? String == "AAEC")
        #expect(conversation[3]["close"] as? Int == 1000)
    }

    @Test("what the command line prints from a file shows control characters as escapes, never as themselves")
    func controlCharactersAreNotSentToTheTerminal() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        // ESC [2J clears the screen; ESC ] 52 sets the clipboard in the terminals that allow it.
        // U+009B is the one-character form of ESC [.
        let hostile = "http://h/x\u{1B}[2J\u{1B}]52;c;ZXZpbA==\u{07}?a=\u{9B}31m"
        let cassette = try Interactions.write([Interactions.get(hostile, answer: "x")], to: folder)
        let inspected = try ToolingTestSupport.tapedeck("inspect", cassette.path)
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(inspected.stdout.contains(#"GET http://h/x\u{1B}[2J\u{1B}]52;c;ZXZpbA==\u{7}?a=\u{9B}31m  200"#), "\(inspected.stdout)")
        // The same from a HAR file's skipped entry, on standard output, and a broken one's error, on standard error.
        let har = folder.appendingPathComponent("in.har")
        try Data(#"{"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [{"startedDateTime": "2026-11-21T10:00:00.000Z", "time": 0, "request": {"method": "GET", "url": "http://h/\u001b[2J", "httpVersion": "", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0}, "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [], "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1, "bodySize": -1}, "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}}]}}"#.utf8).write(to: har)
        let imported = try ToolingTestSupport.tapedeck("har", "import", har.path, "--output", folder.appendingPathComponent("from-har.json").path)
        #expect(imported.stdout.contains(#"http://h/\u{1B}[2J"#), "\(imported.stdout) \(imported.stderr)")
        for outcome in [inspected, imported] {
            #expect(!outcome.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
        }
    }

    @Test("a recorded time past Int's range is printed, not a trap")
    func hugeTimesArePrinted() {
        var interaction = Interactions.get("http://h/slow", answer: "x")
        interaction.timing = Timing(firstByteMs: 1e300, totalMs: 1e308)
        #expect(InteractionSummary(index: 0, interaction: interaction).line.contains(" ms"))
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
