import Foundation
import TapedeckCore
import TapedeckServer
import TapedeckTestSupport
import Testing

/// The inspector (`/__tapedeck/ui` and its JSON and event stream), over real sockets against a
/// replay server on 127.0.0.1 with the example cassette: one request that plays, one that misses.
@Suite("Inspector", .serialized)
struct InspectorTests {
    /// `GET /__tapedeck/exchanges`.
    struct ExchangeList: Decodable {
        var exchanges: [ExchangeSummary]
        var dropped: Int
        var capacity: Int
        var bodyLimit: Int
        var listeners: Int
    }

    /// The JSON POST of the example cassette with one value changed and a live credential.
    static let missingJSON = #"{"user":{"name":"Sean","tags":["swift","http"]},"count":3,"active":true}"#
    static let liveToken = "Bearer live-token-4f9a2c"

    /// Plays `GET /plaintext?name=Shawn` and misses with the JSON POST.
    static func playAndMiss(_ base: String) async throws {
        let played = try await Curl.run([base + "/plaintext?name=Shawn"])
        #expect(played.text == "Hello Shawn!")
        let missed = try await Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json",
                                         "-H", "Authorization: \(liveToken)", "--data", missingJSON, base + "/postBodyData"])
        #expect(missed.text == "599")
    }

    static func list(_ base: String) async throws -> ExchangeList {
        try JSONDecoder().decode(ExchangeList.self, from: try await Curl.run([base + "/__tapedeck/exchanges"]).output)
    }

    /// The newest listed exchange with this outcome, waited for up to thirty seconds (the recording
    /// proxy lists an exchange once it is done with it, which may be just after the client has the answer).
    static func waitForExchange(_ base: String, outcome: JournalEntry.Outcome) async throws -> ExchangeSummary? {
        for _ in 0..<300 {
            if let found = try await list(base).exchanges.first(where: { $0.entry.outcome == outcome }) { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    @Test("exchanges list newest first with outcome, status and cassette place; each opens to its request and response", .requires(.curl))
    func exchangesAndDetails() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Self.playAndMiss(harness.base)
            _ = try await Curl.run(["-o", "/dev/null", harness.base + "/image.png"])
            let list = try await Self.list(harness.base)
            #expect(list.exchanges.map(\.entry.outcome) == [.played, .unmatched, .played])
            #expect(list.exchanges.map(\.status) == [200, 599, 200])
            #expect(list.exchanges.map(\.id) == list.exchanges.map(\.id).sorted(by: >), "newest first")
            let played = try #require(list.exchanges.last)
            #expect(played.entry.url == "/plaintext?name=Shawn")
            #expect(played.entry.cassette == Fixtures.exampleCassette.relativePath)
            #expect(played.entry.index == 0)

            let detail = try JSONDecoder().decode(
                InspectedExchange.self, from: try await Curl.run([harness.base + "/__tapedeck/exchanges/\(played.id)"]).output)
            #expect(detail.response?.status == 200)
            #expect(detail.response?.body.kind == .text)
            #expect(detail.response?.body.text == "Hello Shawn!")
            #expect(detail.request.headers.contains(["Accept", "*/*"]), "curl's own headers, as received")

            let image = try JSONDecoder().decode(
                InspectedExchange.self, from: try await Curl.run([harness.base + "/__tapedeck/exchanges/\(list.exchanges[0].id)"]).output)
            #expect(image.response?.body.kind == .image)
            let png = try #require(Data(base64Encoded: image.response?.body.base64 ?? ""))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))

            let gone = try await Curl.run(["-w", "%{http_code}", "-o", "/dev/null", harness.base + "/__tapedeck/exchanges/9999"])
            #expect(gone.text == "404")
            let notANumber = try await Curl.run(["-w", "%{http_code}", "-o", "/dev/null", harness.base + "/__tapedeck/exchanges/x"])
            #expect(notANumber.text == "404")
        }
    }

    @Test("an unmatched exchange carries its diagnosis, the nearest recorded request, and no live secret", .requires(.curl))
    func unmatchedDetail() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Self.playAndMiss(harness.base)
            let list = try await Self.list(harness.base)
            let miss = try #require(list.exchanges.first { $0.entry.outcome == .unmatched })
            let raw = try await Curl.run([harness.base + "/__tapedeck/exchanges/\(miss.id)"])
            #expect(!raw.text.contains("live-token-4f9a2c"), "the live Authorization value is never shown")
            let detail = try JSONDecoder().decode(InspectedExchange.self, from: raw.output)
            #expect(detail.request.headers.contains(["Authorization", Redactor.placeholder]))
            #expect(detail.request.body.kind == .json)
            #expect(detail.request.body.text == Self.missingJSON)
            let diagnosis = try #require(detail.diagnosis)
            let nearest = try #require(diagnosis.nearest.first)
            #expect(nearest.url == "http://api.example.test/postBodyData")
            #expect(nearest.failedRules == ["body"])
            #expect(nearest.differences == [#"at $.user.name recorded "Shawn", received "Sean""#])
            let recorded = try #require(detail.nearestRequests?.first ?? nil)
            #expect(recorded.body.text?.contains(#""name":"Shawn""#) == true)
        }
    }

    /// Stubs named `flaky` (a reset), `cut short` (a truncated answer) and `greeting` (an answer).
    static let namedStubs = #"""
        {"version": 1, "stubs": [
          {"name": "flaky", "request": {"path": "/flaky"}, "response": {"fault": "reset"}},
          {"name": "cut short", "request": {"path": "/cut"}, "response": {"status": 200, "body": {"text": "0123456789"}, "fault": "truncate"}},
          {"name": "greeting", "request": {"path": "/hello"}, "response": {"status": 200, "body": {"text": "hi"}}}]}
        """#

    /// Runs `body` against a replay server of ``namedStubs`` after asking each of its paths once.
    static func withNamedStubsAsked(_ body: (ReplayHarness) async throws -> Void) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(namedStubs, named: "stubs.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            #expect(try await Curl.run([harness.base + "/flaky"]).status == 56)
            #expect(try await Curl.run([harness.base + "/cut"]).status == 18)
            #expect(try await Curl.run([harness.base + "/hello"]).text == "hi")
            try await body(harness)
        }
    }

    @Test("a stub's fault is listed by name with no status it never sent, and a stub by its name, in the list, the detail and the journal",
          .requires(.curl))
    func faultsAndStubNames() async throws {
        try await Self.withNamedStubsAsked { harness in
            let list = try await Self.list(harness.base)
            let (greeting, cut, flaky) = (list.exchanges[0], list.exchanges[1], list.exchanges[2])
            #expect(flaky.entry.fault == .reset)
            #expect(flaky.status == nil, "a reset sends no status")
            #expect(flaky.entry.stubName == "flaky")
            #expect(cut.entry.fault == .truncate)
            #expect(cut.status == 200, "a truncated answer's head was sent")
            #expect(greeting.entry.fault == nil)
            #expect(greeting.status == 200)
            #expect(greeting.entry.stubName == "greeting")
            let detail = try JSONDecoder().decode(
                InspectedExchange.self, from: try await Curl.run([harness.base + "/__tapedeck/exchanges/\(flaky.id)"]).output)
            #expect(detail.response == nil, "no answer was sent")
            #expect(detail.summary.entry.fault == .reset)
            let journal = try JSONDecoder().decode(JournalDocument.self, from: try await Curl.run([harness.base + "/__tapedeck/journal"]).output)
            #expect(journal.entries.map(\.stubName) == ["flaky", "cut short", "greeting"])
            #expect(journal.entries.map(\.fault) == [.reset, .truncate, nil])
        }
    }

    @Test("headless Chromium lists a fault by name and a stub by its name",
          .requires(.curl, .python3), .enabled(if: Chromium.path != nil, Comment(rawValue: Chromium.missing)))
    func browserShowsFaultsAndStubNames() async throws {
        try await Self.withNamedStubsAsked { harness in
            let dom = try await Chromium.dumpDOM(harness.base + "/__tapedeck/ui#exchange=1")
            let start = try #require(dom.range(of: #"<table id="exchanges">"#), "the list is rendered")
            let end = try #require(dom.range(of: "</table>", range: start.upperBound..<dom.endIndex))
            let list = dom[start.lowerBound..<end.upperBound]
            #expect(list.contains("fault: reset") && list.contains("fault: truncate"), "\(list)")
            #expect(list.contains("stub \"flaky\"") || list.contains("stub &quot;flaky&quot;"), "\(list)")
            #expect(!list.contains("stub stub-"), "\(list)")
            let detail = dom[end.upperBound...]
            #expect(detail.contains("fault: reset"), "the opened exchange names its fault")
        }
    }

    @Test("cassettes list their interactions with play counts; reset empties the list and the counts", .requires(.curl))
    func cassettesAndReset() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Self.playAndMiss(harness.base)
            _ = try await Curl.run([harness.base + "/plaintext?name=Shawn"])
            func overview() async throws -> CassetteOverview {
                try JSONDecoder().decode(CassetteOverview.self, from: try await Curl.run([harness.base + "/__tapedeck/cassettes"]).output)
            }
            let before = try await overview()
            #expect(before.mode == "replay")
            let cassette = try #require(before.cassettes.first)
            #expect(cassette.count == 8)
            #expect(cassette.interactions.map(\.plays) == [2, 0, 0, 0, 0, 0, 0, 0])
            #expect(cassette.interactions[4].url == "http://api.example.test/image.png")

            _ = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", harness.base + "/__tapedeck/reset"])
            #expect(try await Self.list(harness.base).exchanges.isEmpty)
            #expect(try await overview().cassettes.first?.interactions.allSatisfy { $0.plays == 0 } == true)
            let wrongMethod = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "-w", "%{http_code}", "-o", "/dev/null", harness.base + "/__tapedeck/cassettes"])
            #expect(wrongMethod.text == "405")
        }
    }

    @Test("the page, its style and scripts are served from the binary, and load nothing from elsewhere", .requires(.curl))
    func pageIsServed() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let page = try await Curl.run(["-i", harness.base + "/__tapedeck/ui"])
            #expect(page.text.hasPrefix("HTTP/1.1 200"))
            #expect(page.text.lowercased().contains("content-type: text/html; charset=utf-8"))
            #expect(page.text.lowercased().contains("content-security-policy: default-src 'self'"))
            #expect(page.text.contains("<title>Tapedeck inspector</title>"))
            #expect(!page.text.contains("http://") && !page.text.contains("https://"), "no outside resource")
            for (asset, type) in [("style.css", "text/css"), ("app.js", "text/javascript"), ("live.js", "text/javascript")] {
                let served = try await Curl.run(["-i", harness.base + "/__tapedeck/ui/" + asset])
                #expect(served.text.hasPrefix("HTTP/1.1 200"), "\(asset)")
                #expect(served.text.lowercased().contains("content-type: \(type)"), "\(asset)")
                #expect(!served.text.contains("https://"), "\(asset) fetches nothing from elsewhere")
            }
        }
    }

    @Test("with the admin API off, the page and its data are not served", .requires(.curl))
    func noAdminTurnsThePageOff() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], configure: { $0.adminEnabled = false }) { (harness: ReplayHarness) async throws in
            for path in ["/__tapedeck/ui", "/__tapedeck/events", "/__tapedeck/exchanges", "/__tapedeck/cassettes"] {
                // Served like any other request (as the rest of the admin API is under --no-admin): unmatched.
                let answer = try await Curl.run(["-i", harness.base + path])
                #expect(answer.text.hasPrefix("HTTP/1.1 599"), "\(path)")
                #expect(answer.text.contains("Tapedeck-Error: no-match"), "\(path)")
                #expect(!answer.text.contains("<html"), "\(path)")
            }
        }
    }

    @Test("the event stream sends each new exchange, and a reset, to a listener over a real socket", .requires(.curl))
    func eventStream() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            socket.send("GET /__tapedeck/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            let opened = await socket.read { String(decoding: $0, as: UTF8.self).contains(": listening") }
            let head = String(decoding: opened.data, as: UTF8.self)
            #expect(opened.ending == .satisfied, "the stream opens with a comment: \(head)")
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.lowercased().contains("content-type: text/event-stream"))

            _ = try await Curl.run(["-o", "/dev/null", harness.base + "/plaintext?name=Sean"])
            let first = await socket.read { String(decoding: $0, as: UTF8.self).contains("\n\n") }
            let event = String(decoding: first.data, as: UTF8.self)
            #expect(event.contains("event: exchange\n"), "\(event)")
            let line = try #require(event.split(separator: "\n").first { $0.hasPrefix("data: ") })
            let summary = try JSONDecoder().decode(ExchangeSummary.self, from: Data(line.dropFirst("data: ".count).utf8))
            #expect(summary.entry.url == "/plaintext?name=Sean")
            #expect(summary.entry.outcome == .unmatched)
            #expect(summary.status == 599)
            #expect(event.contains("id: \(summary.id)\n"))

            _ = try await Curl.run(["-X", "POST", "-H", "Content-Type: application/json", harness.base + "/__tapedeck/reset"])
            let reset = await socket.read { String(decoding: $0, as: UTF8.self).contains("\n\n") }
            #expect(String(decoding: reset.data, as: UTF8.self).contains("event: reset\n"))
            #expect(try await Self.list(harness.base).listeners == 1)
            socket.hangUp()
            var listeners = 1
            for _ in 0..<50 where listeners > 0 {
                try await Task.sleep(for: .milliseconds(20))
                listeners = try await Self.list(harness.base).listeners
            }
            #expect(listeners == 0, "a listener that hung up is forgotten")
        }
    }

    @Test("a listener that stops reading is cut off once it leaves 1 MiB unread: before, the server kept every later event for it")
    func aStalledListenerIsCutOff() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let events = try #require(harness.responder.admin.inspector?.exchanges.events)
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            socket.send("GET /__tapedeck/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            _ = await socket.read { String(decoding: $0, as: UTF8.self).contains(": listening") }
            // From here it reads nothing: 16 MiB of events fill the sockets' buffers and then the server's.
            let data = String(repeating: "x", count: 64 * 1024)
            for _ in 0..<256 { events.publish(event: "exchange", data: data) }
            for _ in 0..<250 where events.listenerCount > 0 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(events.listenerCount == 0)
            #expect(await socket.read().ending == .closed, "its stream is closed; its page reconnects and reloads")
        }
    }

    @Test("the exchange store is bounded: the oldest go, and each body keeps at most its limit")
    func storeIsBounded() throws {
        let store = ExchangeStore(capacity: 2, bodyLimit: 8)
        for number in 1...3 {
            let request = CassetteRequest(method: "POST", url: "/items/\(number)", headers: ["Content-Type": "text/plain"],
                                          body: Body(text: "0123456789abcdef"))
            store.add(JournalEntry(time: "t", method: "POST", url: request.url, session: nil, outcome: .played), request: request,
                      response: CassetteResponse(status: 200, body: Body(Data(repeating: 0xFF, count: 100))))
        }
        let (kept, dropped) = store.summaries()
        #expect(kept.map(\.entry.url) == ["/items/3", "/items/2"])
        #expect(dropped == 1)
        #expect(store.exchange(id: 1) == nil)
        let newest = try #require(store.exchange(id: 3))
        #expect(newest.request.body.text == "01234567")
        #expect(newest.request.body.size == 16)
        #expect(newest.request.body.truncated == true)
        #expect(newest.response?.body.size == 100)
        #expect(newest.response?.body.truncated == true)
        #expect(newest.response?.body.kind == .binary)
        #expect(Data(base64Encoded: newest.response?.body.base64 ?? "")?.count == 8)
    }

    @Test("a body is shown by its kind: JSON, text, an image, or bytes (control characters included) in hex")
    func bodyKinds() {
        func kind(_ bytes: [UInt8], _ type: String?) -> InspectedBody.Kind {
            InspectedBody(Body(Data(bytes)), contentType: type, limit: 100).kind
        }
        #expect(kind(Array(#"{"a":1}"#.utf8), "application/problem+json") == .json)
        #expect(kind(Array("line one\r\n\tline two".utf8), "text/plain") == .text)
        #expect(kind([0x89, 0x50, 0x4E, 0x47], "image/png") == .image)
        #expect(kind([0x00, 0x01, 0x41], nil) == .binary, "valid UTF-8, but control characters")
        #expect(kind(Array("plain".utf8), "application/octet-stream") == .binary)
        #expect(kind([0xFF, 0xFE], "text/plain") == .binary, "not UTF-8")
        #expect(kind([], "text/plain") == .empty)
        let cut = InspectedBody(Body(Data("héllo".utf8)), contentType: "text/plain", limit: 2)
        #expect(cut.text == "h", "a character cut in half is dropped")
        #expect(cut.truncated && cut.size == 6)
    }

    @Test("the store shows requests redacted: a body cut to the limit is redacted whole first, a small one when shown")
    func storeRedacts() throws {
        let store = ExchangeStore(capacity: 4, bodyLimit: 32, secrets: try Secrets(["API_KEY": "key-0123456789"]))
        let padding = String(repeating: "x", count: 100)
        let large = CassetteRequest(method: "POST", url: "/login?token=tok-live-1", headers: ["Content-Type": "application/json"],
                                    body: Body(text: #"{"pad":"\#(padding)","password":"hunter2-live"}"#))
        let small = CassetteRequest(method: "GET", url: "/me?key=key-0123456789",
                                    headers: ["Authorization": "Bearer live-token-4f9a2c", "X-Key": "key-0123456789"])
        func entry(_ request: CassetteRequest) -> JournalEntry {
            JournalEntry(time: "t", method: request.method, url: request.url, session: nil, outcome: .unmatched)
        }
        let first = store.add(entry(large), request: large, status: 599)
        let second = store.add(entry(small), request: small, response: CassetteResponse(status: 200, headers: ["Set-Cookie": "sid=live-cookie"]))
        let shown = try JSONEncoder().encode([try #require(store.exchange(id: first)), try #require(store.exchange(id: second))])
        let text = String(decoding: shown, as: UTF8.self)
        for secret in ["hunter2-live", "tok-live-1", "live-token-4f9a2c", "key-0123456789", "live-cookie"] {
            #expect(!text.contains(secret), "\(secret) is never shown")
        }
        let listed = String(decoding: try JSONEncoder().encode(store.summaries().exchanges), as: UTF8.self)
        #expect(!listed.contains("tok-live-1") && !listed.contains("key-0123456789"), "the list shows URLs redacted: \(listed)")
        #expect(store.exchange(id: first)?.request.body.truncated == true)
        #expect(store.exchange(id: second)?.request.headers.contains(["X-Key", "<API_KEY>"]) == true)
        #expect(store.exchange(id: second)?.response?.headers.contains(["Set-Cookie", Redactor.placeholder]) == true)
    }

    @Test("a request body put in after the exchange was kept (a played chat's messages) is redacted as one kept then would be")
    func requestEndedRedacts() throws {
        let store = ExchangeStore(capacity: 4, bodyLimit: 32, secrets: try Secrets(["API_KEY": "key-0123456789"]))
        let call = CassetteRequest(method: "POST", url: "/chat", headers: ["Content-Type": "application/json"], body: Body(text: "{}"))
        let entry = JournalEntry(time: "t", method: "POST", url: "/chat", session: nil, outcome: .played)
        func shown(_ id: Int) throws -> String {
            String(decoding: try JSONEncoder().encode(try #require(store.exchange(id: id))), as: UTF8.self)
        }
        let small = store.add(entry, request: call, response: CassetteResponse(status: 200))
        store.requestEnded(id: small, body: Body(text: #"{"key":"key-0123456789"}"#))
        #expect(store.exchange(id: small)?.request.body.size == 24)
        #expect(try !shown(small).contains("key-0123456789"), "concealed when shown")

        let large = #"{"pad":"\#(String(repeating: "x", count: 100))","password":"hunter2-live"}"#
        let cut = store.add(entry, request: call, response: CassetteResponse(status: 200))
        store.requestEnded(id: cut, body: Body(text: large))
        #expect(store.exchange(id: cut)?.request.body.truncated == true)
        #expect(try !shown(cut).contains("hunter2"), "redacted whole before it is cut")

        let clean = store.add(entry, request: call, response: CassetteResponse(status: 200), isClean: true)
        store.requestEnded(id: clean, body: Body(text: #"{"password":"hunter2-live"}"#))
        #expect(try !shown(clean).contains("hunter2"), "an exchange kept clean stays clean")
    }

    @Test("the recording proxy shows what it recorded in redacted form, never the live secrets", .requires(.curl))
    func recordingProxyShowsRedacted() async throws {
        _ = try await RecordHarness.recordFromTestUpstream { (harness: RecordHarness, _: TestUpstream) async throws in
            let sent = try await Curl.run(["-H", "Content-Type: application/json", "-H", "Authorization: \(Self.liveToken)",
                                           "--data", #"{"user":"ann","password":"hunter2-live"}"#, harness.base + "/postBodyData"])
            #expect(sent.text.contains("hunter2-live"), "the client gets the live answer")
            let summary = try #require(try await Self.waitForExchange(harness.base, outcome: .recorded), "the recorded exchange is listed")
            let raw = try await Curl.run([harness.base + "/__tapedeck/exchanges/\(summary.id)"])
            #expect(!raw.text.contains("live-token-4f9a2c"))
            #expect(!raw.text.contains("hunter2-live"))
            let detail = try JSONDecoder().decode(InspectedExchange.self, from: raw.output)
            #expect(detail.request.headers.contains(["Authorization", Redactor.placeholder]))
            #expect(detail.request.body.text?.contains(#""password":"<redacted>""#) == true)
            #expect(detail.response?.status == 200)
            let overview = try JSONDecoder().decode(CassetteOverview.self, from: try await Curl.run([harness.base + "/__tapedeck/cassettes"]).output)
            #expect(overview.mode == "new-episodes")
            #expect(overview.recordedThisRun == 1)
        }
    }

    @Test("what the recording proxy passes on unrecorded (a passthrough host) is listed as forwarded, redacted", .requires(.curl))
    func recordingProxyListsForwarded() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await TestUpstream.start()
        let settings = RecordSettings(cassette: directory.appending(path: "pass.json"), passthroughHosts: ["localhost"])
        do {
            try await RecordHarness.run(settings: settings) { (harness: RecordHarness) async throws in
                let result = try await Curl.run(["--proxy", harness.base, "-H", "Authorization: \(Self.liveToken)",
                                                 "http://localhost:\(upstream.port)/plaintext?name=Pass&token=tok-live-1"])
                #expect(result.text == "Hello Pass!")
                let forwarded = try #require(try await Self.waitForExchange(harness.base, outcome: .forwarded))
                #expect(forwarded.status == 200)
                #expect(forwarded.entry.url == "http://localhost:\(upstream.port)/plaintext?name=Pass&token=\(Redactor.placeholder)")
                let raw = try await Curl.run([harness.base + "/__tapedeck/exchanges/\(forwarded.id)"])
                #expect(!raw.text.contains("tok-live-1") && !raw.text.contains("live-token-4f9a2c"))
                let detail = try JSONDecoder().decode(InspectedExchange.self, from: raw.output)
                #expect(detail.response?.headers.contains(["Content-Type", "text/plain; charset=utf-8"]) == true)
            }
        } catch {
            try? await upstream.stop()
            throw error
        }
        try await upstream.stop()
    }

    @Test("headless Chromium renders the played request, the unmatched one and the highlighted difference", .requires(.curl, .python3),
          .enabled(if: Chromium.path != nil, Comment(rawValue: Chromium.missing)))
    func browserRendersTheDiff() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Self.playAndMiss(harness.base)
            let dom = try await Chromium.dumpDOM(harness.base + "/__tapedeck/ui#unmatched")
            #expect(dom.contains("/plaintext?name=Shawn"), "the played request is listed")
            #expect(dom.contains("/postBodyData"), "the unmatched request is listed")
            #expect(dom.contains(#"id="diagnosis""#), "the unmatched exchange opened")
            #expect(dom.contains(#"<mark class="path">$.user.name</mark>"#), "the differing JSON path, highlighted")
            #expect(dom.contains(#"<mark class="recorded">"Shawn"</mark>"#) || dom.contains(#"<mark class="recorded">&quot;Shawn&quot;</mark>"#))
            #expect(dom.contains(#"<mark class="received">"Sean"</mark>"#) || dom.contains(#"<mark class="received">&quot;Sean&quot;</mark>"#))
            #expect(dom.contains("http://api.example.test/postBodyData"), "the nearest recording beside it")
            #expect(!dom.contains("live-token-4f9a2c"))
            #expect(dom.contains("http://api.example.test/image.png"), "the cassette's interactions are listed")
        }
    }

    @Test("a gRPC answer's trailers are in its exchange and on the page",
          .requires(.curl, .grpcio), .enabled(if: Chromium.path != nil, Comment(rawValue: Chromium.missing)))
    func trailersAreShown() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(GRPCReplayTests.cassette, named: "greeter.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let script = """
            import grpc
            print(grpc.insecure_channel("127.0.0.1:\(harness.server.port)").unary_unary("/demo.Greeter/SayHello")(bytes.fromhex("0a03416461"), timeout=\(Deadlines.clientCall)).hex())
            """
            _ = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", script])
            let list = try JSONDecoder().decode(ExchangeList.self, from: try await Curl.run([harness.base + "/__tapedeck/exchanges"]).output)
            let id = try #require(list.exchanges.first?.id)
            let exchange = try JSONDecoder().decode(
                InspectedExchange.self, from: try await Curl.run([harness.base + "/__tapedeck/exchanges/\(id)"]).output)
            #expect(exchange.response?.trailers?.contains(["grpc-status", "0"]) == true, "\(String(describing: exchange.response?.trailers))")
            let dom = try await Chromium.dumpDOM(harness.base + "/__tapedeck/ui#exchange=\(id)")
            #expect(dom.contains("<h4>Trailers</h4>") && dom.contains("<td>grpc-status</td>"), "\(dom.suffix(3000))")
        }
    }

    @Test("under --proxy-auth the page asks with 401 and takes the credentials as Authorization; requests to pass on still need Proxy-Authorization",
          .requires(.curl))
    func pageUnderProxyAuth() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], configure: {
            $0.proxyCredentials = ProxyCredentials(user: "alice", password: "s3cret")
        }) { (harness: ReplayHarness) async throws in
            let port = harness.server.port
            let asked = try await RawSocket.exchange(port: port, "GET /__tapedeck/ui HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let askedText = String(decoding: asked.data, as: UTF8.self)
            #expect(askedText.hasPrefix("HTTP/1.1 401 Unauthorized"))
            #expect(askedText.contains("WWW-Authenticate: Basic realm=\"tapedeck\""))
            #expect(!askedText.contains("Proxy-Authenticate"))

            let page = try await Curl.run(["-u", "alice:s3cret", harness.base + "/__tapedeck/ui"])
            #expect(page.text.contains("<title>"), "the page is served with the credentials as Authorization")
            let wrong = try await Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "-u", "alice:wrong", harness.base + "/__tapedeck/journal"])
            #expect(wrong.text == "401")

            // Authorization does not stand in for Proxy-Authorization on a request to pass on.
            let right = Data("alice:s3cret".utf8).base64EncodedString()
            let passOn = try await RawSocket.exchange(port: port, "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\n"
                + "Authorization: Basic \(right)\r\nConnection: close\r\n\r\n")
            #expect(String(decoding: passOn.data, as: UTF8.self).hasPrefix("HTTP/1.1 407"))
        }
    }

    @Test("headless Chromium opens the page under --proxy-auth with the credentials in the address", .requires(.python3),
          .enabled(if: Chromium.path != nil, Comment(rawValue: Chromium.missing)))
    func browserOpensThePageUnderProxyAuth() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], configure: {
            $0.proxyCredentials = ProxyCredentials(user: "alice", password: "s3cret")
        }) { (harness: ReplayHarness) async throws in
            let address = harness.base.replacingOccurrences(of: "http://", with: "http://alice:s3cret@")
            let dom = try await Chromium.dumpDOM(address + "/__tapedeck/ui")
            #expect(dom.contains("http://api.example.test/image.png"), "the cassette's interactions, fetched by the page's script, are listed")
        }
    }

    @Test("headless Chromium applies a filter given in the fragment to the live list", .requires(.curl, .python3),
          .enabled(if: Chromium.path != nil, Comment(rawValue: Chromium.missing)))
    func browserFilters() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Self.playAndMiss(harness.base)
            let dom = try await Chromium.dumpDOM(harness.base + "/__tapedeck/ui#filter=unmatched")
            let start = try #require(dom.range(of: #"<table id="exchanges">"#), "the list is rendered")
            let end = try #require(dom.range(of: "</table>", range: start.upperBound..<dom.endIndex))
            let list = dom[start.lowerBound..<end.upperBound]
            #expect(list.contains("/postBodyData"), "the unmatched request stays")
            #expect(!list.contains("/plaintext?name=Shawn"), "the played one is filtered out")
            #expect(dom.contains("(1 of 2)"))
        }
    }
}
