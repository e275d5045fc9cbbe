import Foundation
import TapedeckTestSupport
import Testing
@testable import TapedeckCore

/// The findings of the attacker's probe that the core answers (issue "Safe on a developer's
/// machine"): each test names its row, and each failed before the fix.
@Suite("Hostile stubs, cassettes and requests: the core stays bounded")
struct HostileInputTests {
    private func cassette(_ json: String) throws(CassetteError) -> Cassette {
        try CassetteCodec().decode(Data(json.utf8))
    }

    private func request(_ method: String, _ url: String, headers: HeaderList = [:], body: String = "") -> CassetteRequest {
        CassetteRequest(method: method, url: url, headers: headers, body: Body(text: body))
    }

    private func request(url: String) -> CassetteRequest { request("GET", url) }

    private func templatedStub(headers: String = "{}", body: String) throws -> StubSet {
        let stubs = try cassette(#"{"version": 1, "interactions": [], "stubs": [{"name": "echo", "request": {"path": "/echo"}, "response": {"status": 200, "headers": \#(headers), "body": {"text": "\#(body)"}, "templated": true}}]}"#).stubs
        return StubSet(stubs)
    }

    @Test("row 4: a header expanded to CR/LF is a 500 naming the stub, never a split answer")
    func templatedHeaderCannotSplitTheAnswer() throws {
        let stubs = try templatedStub(headers: #"{"X-Echo": ["{{query.x}}"]}"#, body: "ok")
        let served = try #require(stubs.answer(request(url: "/echo?x=abc%0d%0aSet-Cookie:%20evil=1"), session: ""))
        #expect(served.response.status == 500)
        #expect(served.response.headers["Set-Cookie"] == nil)
        #expect(served.response.body.text?.contains("stub \"echo\"") == true)
        #expect(served.response.body.text?.contains("CR, LF or NUL") == true)
        // A harmless value is still served as the template says.
        #expect(stubs.answer(request(url: "/echo?x=abc"), session: "")?.response.headers["X-Echo"] == "abc")
    }

    @Test("row 4: a cassette or stub whose header value holds CR or LF does not load, and says where")
    func headerWithLineBreakIsRefusedAtLoad() {
        let json = #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/x"}, "response": {"status": 200, "headers": {"X-A": ["a\r\nSet-Cookie: b"]}}}]}"#
        #expect { try cassette(json) } throws: { "\($0)".contains("interactions[0].response.headers") && "\($0)".contains("CR, LF or NUL") }
    }

    @Test("an interim status (1xx) does not load as an answer, but 101 with its WebSocket conversation does")
    func interimStatusIsRefusedAtLoad() throws {
        func recorded(_ status: Int, websocket: String? = nil) -> String {
            let conversation = websocket.map { #", "websocket": \#($0)"# } ?? ""
            return #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/x"}, "response": {"status": \#(status)}\#(conversation)}]}"#
        }
        func stub(_ response: String) -> String {
            #"{"version": 1, "interactions": [], "stubs": [{"request": {"path": "/x"}, "response": \#(response)}]}"#
        }
        // Served, each left the client waiting for a final answer, or taking the next request's for it.
        for status in [100, 101, 103] {
            #expect { try cassette(recorded(status)) } throws: {
                "\($0)".contains("interactions[0].response.status") && "\($0)".contains("status \(status) is an interim answer")
            }
            #expect { try cassette(stub(#"{"status": \#(status)}"#)) } throws: { "\($0)".contains("status \(status) is an interim answer") }
        }
        let conversation = #"[{"from": "server", "atMs": 0, "text": "hi"}]"#
        #expect { try cassette(recorded(200, websocket: conversation)) } throws: {
            "\($0)".contains("interactions[0].response.status") && "\($0)".contains("WebSocket conversation has status 101, not 200")
        }
        #expect { try cassette(stub(#"{"status": 200, "websocket": \#(conversation)}"#)) } throws: { "\($0)".contains("has status 101, not 200") }
        #expect(try cassette(recorded(101, websocket: conversation)).interactions[0].websocket?.count == 1)
        let stubs = StubSet(try cassette(stub(#"{"websocket": \#(conversation)}"#)).stubs)
        #expect(stubs.answer(request(url: "/x"), session: "")?.response.status == 101)
    }

    @Test("a WebSocket close code no close frame may carry does not load: the client failed the connection with 1002")
    func unsendableCloseCodesAreRefusedAtLoad() throws {
        func recorded(_ close: String) -> String {
            #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/ws"}, "response": {"status": 101}, "websocket": [{"from": "server", "close": \#(close)}]}]}"#
        }
        for code in [0, 999, 1004, 1005, 1006, 1015, 2000, 5000] {
            #expect { try cassette(recorded("\(code)")) } throws: {
                "\($0)".contains("interactions[0].websocket[0].close") && "\($0)".contains("close code \(code) may not be sent")
            }
        }
        for code in [1000, 1003, 1007, 1014, 3000, 4999] { #expect(try cassette(recorded("\(code)")).interactions.count == 1) }
        #expect(try cassette(recorded("null")).interactions.count == 1, "a close frame without a code")
    }

    @Test("a recorded time below zero does not load, naming the field: a timing, a chunk's offset")
    func negativeRecordedTimesAreRefused() {
        let timing = #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/x"}, "response": {"status": 200}, "timing": {"firstByteMs": 1, "totalMs": -1e308}}]}"#
        #expect { try cassette(timing) } throws: { "\($0)".contains("interactions[0].timing.totalMs") && "\($0)".contains("0 or more") }
        let chunk = #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/x"}, "response": {"status": 200}, "chunks": [{"atMs": -5, "text": "a"}]}]}"#
        #expect { try cassette(chunk) } throws: { "\($0)".contains("interactions[0].chunks[0].atMs") }
    }

    @Test("a long value where another was expected is named, not quoted whole")
    func longValuesAreNotQuotedWhole() {
        let long = String(repeating: "x", count: 70_000)
        let json = #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/ws"}, "response": {"status": 101}, "websocket": [{"from": "\#(long)", "text": "a"}]}]}"#
        #expect { try cassette(json) } throws: { error in
            let text = "\(error)"
            return text.contains("interactions[0].websocket[0].from") && text.count < 1000 && text.contains("characters in all")
        }
    }

    @Test("row 5: delays past a day are refused where they are read, naming the field")
    func hugeDelaysAreRefused() {
        let stub = #"{"version": 1, "interactions": [], "stubs": [{"request": {"path": "/slow"}, "response": {"status": 200, "delayMs": 1e13}}]}"#
        #expect { try cassette(stub) } throws: { "\($0)".contains("delayMs") && "\($0)".contains("86400000") }
        let recorded = #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/x"}, "response": {"status": 200}, "delayMs": -1}]}"#
        #expect { try cassette(recorded) } throws: { "\($0)".contains("interactions[0].delayMs") }
        #expect(throws: LatencyParseError.self) { try LatencyOption(parsing: "fixed:1e16") }
        #expect(throws: LatencyParseError.self) { try LatencyOption(parsing: "scale:inf") }
        // A recorded time scaled far past a day waits a day, and nothing traps.
        let slow = Interaction(request: request(url: "/x"), response: CassetteResponse(status: 200),
                               timing: Timing(firstByteMs: 1e12, totalMs: 1e12))
        #expect(LatencyModel(.scale(1000)).delay(for: slow, index: 0, playCount: 0).total == .milliseconds(86_400_000))
    }

    @Test("row 6: a secret is revealed only to its hosts, or to the reverse proxy's target")
    func secretsGoOnlyWhereTheyBelong() throws {
        let secrets = try Secrets(specifications: ["TOK=LIVE_TOKEN@api.example.test", "KEY=LIVE_KEY"],
                                  environment: ["LIVE_TOKEN": "tok-live-123", "LIVE_KEY": "key-live-456"])
        let placeholders = request(url: "https://x/?t=<TOK>&k=<KEY>")
        func revealed(to host: String, home: Secrets.Home) -> String {
            secrets.revealable(to: host, home: home).reveal(request(url: "https://\(host)/?t=<TOK>&k=<KEY>")).url
        }
        #expect(revealed(to: "api.example.test", home: .nowhere) == "https://api.example.test/?t=tok-live-123&k=<KEY>")
        #expect(revealed(to: "evil.test", home: .nowhere) == "https://evil.test/?t=<TOK>&k=<KEY>")
        #expect(revealed(to: "target.test", home: .host("target.test")) == "https://target.test/?t=<TOK>&k=key-live-456")
        #expect(revealed(to: "evil.test", home: .host("target.test")) == "https://evil.test/?t=<TOK>&k=<KEY>")
        #expect(secrets.placeholders(in: placeholders.url) == ["KEY", "TOK"])
        #expect(throws: SecretsError.self) { try Secrets(specifications: ["TOK=LIVE_TOKEN@"], environment: ["LIVE_TOKEN": "tok-live-123"]) }
    }

    @Test("row 8: the verification log and diagnoses keep request bodies to 64 KiB")
    func logsKeepBodiesShort() {
        let stubs = StubSet()
        let large = String(repeating: "x", count: 1 << 20)
        stubs.log(request("POST", "/upload", body: large), session: "")
        let kept = stubs.verify(RequestPattern(path: "/upload"))
        #expect(kept.count == 1 && kept[0].body.count == Body.logLimit)
        let summary = MatchDiagnosis.ReceivedRequest(request("POST", "/upload", body: large))
        #expect((summary.body?.utf8.count ?? 0) < Body.logLimit + 100)
        #expect(summary.body?.hasSuffix("(1048576 bytes in all, the first 65536 shown)") == true)
    }

    @Test("row 9: a path regex that backtracks without end is stopped and does not match", .timeLimit(.minutes(1)))
    func catastrophicRegexIsStopped() throws {
        let pattern = RequestPattern(pathRegex: try StubRegex("/(a+)+"))
        let path = "/" + String(repeating: "a", count: 40) + "b"
        guard case .failure(let failure) = pattern.evaluate(request(url: path)) else {
            Issue.record("the regex matched")
            return
        }
        #expect(failure.field == "pathRegex")
        guard case .success = pattern.evaluate(request(url: "/aaaa")) else {
            Issue.record("a path the regex matches quickly no longer matches")
            return
        }
    }

    @Test("row 10: a template that would expand past the limit is a 500, and the body is parsed once")
    func templateOutputIsCapped() throws {
        let expressions = String(repeating: "{{json.a}}", count: 200)
        let stubs = try templatedStub(body: expressions)
        let big = #"{"a": ""# + String(repeating: "z", count: 1 << 20) + #""}"#
        let served = try #require(stubs.answer(request("POST", "/echo", headers: ["Content-Type": "application/json"], body: big), session: ""))
        #expect(served.response.status == 500)
        #expect(served.response.body.text?.contains("--max-template-output") == true)
        let small = try #require(stubs.answer(request("POST", "/echo", body: #"{"a": "b"}"#), session: ""))
        #expect(small.response.body.text == String(repeating: "b", count: 200))
    }

    @Test("row 11: sessions are kept for the 10,000 most recent; an older one starts again")
    func sessionsAreBounded() throws {
        let recorded = try cassette(#"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/n"}, "response": {"status": 200, "body": {"text": "one"}}}, {"request": {"method": "GET", "url": "/n"}, "response": {"status": 200, "body": {"text": "two"}}}]}"#)
        let player = Player(cassettes: [("c", recorded)], options: PlaybackOptions())
        func body(_ session: String) -> String? {
            guard case .played(let playback) = player.play(request(url: "/n"), session: session) else { return nil }
            return playback.interaction.response.body.text
        }
        #expect(body("first") == "one")
        #expect(body("first") == "two")
        for number in 0..<Player.sessionCapacity { _ = body("s\(number)") }
        #expect(body("first") == "one", "the oldest session was forgotten, so it starts again")

        var cache = LRUCache<Int, Int>(capacity: 100)
        for key in 0..<10_000 { cache.set(key, for: key) }
        #expect(cache.count <= 100)
        #expect(cache.peek(9_999) == 9_999 && cache.peek(0) == nil)
    }

    @Test("row 12: a side file that is a link, or whose bytes are not its digest, is refused naming it")
    func sideFilesAreThemselves() throws {
        let folder = TestFiles.folder.appending(path: "tapedeck-hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bodies = folder.appending(path: "c.bodies")
        try FileManager.default.createDirectory(at: bodies, withIntermediateDirectories: true)
        let real = Data("the real body".utf8)
        let digest = SHA256.hash(real).hexadecimal
        let outside = folder.appending(path: "outside.txt")
        try Data("a file outside the bodies folder".utf8).write(to: outside)
        let linked = String(repeating: "a", count: 64)
        try FileManager.default.createSymbolicLink(at: bodies.appending(path: "\(linked).bin"), withDestinationURL: outside)
        try Data("not the real body".utf8).write(to: bodies.appending(path: "\(digest).bin"))

        func load(_ name: String) throws -> Cassette {
            try CassetteCodec().decode(Data(#"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/x"}, "response": {"status": 200, "body": {"file": "c.bodies/\#(name).bin"}}}]}"#.utf8),
                                       file: folder.appending(path: "c.json"))
        }
        #expect { try load(linked) } throws: { "\($0)".contains("is a link or not a regular file") }
        #expect { try load("0000") } throws: { "\($0)".contains("is not of the form") }
        let changed = try #require(try load(digest).interactions.first?.response.body.file)
        #expect { try changed.contents() } throws: { "\($0)".contains("\(digest).bin was changed") }
    }

    @Test("row 13: stubs added one at a time are indexed as they come", .timeLimit(.minutes(1)))
    func addingStubsOneByOneIsLinear() {
        let stubs = StubSet()
        for number in 0..<10_000 {
            stubs.add([Stub(request: RequestPattern(method: "GET", path: "/items/\(number)"), response: StubResponse(status: 200))])
        }
        #expect(stubs.list().count == 10_000)
        #expect(stubs.answer(request(url: "/items/9999"), session: "")?.stub.id == "stub-10000")
    }
}
