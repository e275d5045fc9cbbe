import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TapedeckTestSupport
import Testing
import TapedeckCore
@testable import TapedeckTooling

@Suite("HAR import and export")
struct HARTests {
    static func example() throws -> Cassette { try CassetteCodec().load(ToolingTestSupport.exampleCassette) }

    static func played(_ player: Player, _ request: CassetteRequest) throws -> Interaction {
        switch player.play(request) {
        case .played(let playback): return playback.interaction
        case .unmatched(let diagnosis): throw TestSupportError("unmatched: \(diagnosis)")
        }
    }

    @Test("cassette to HAR and back gives the same interactions")
    func roundTripKeepsInteractions() throws {
        let cassette = try Self.example()
        let exporter = HARExporter()
        let exported = try exporter.export(cassette)
        #expect(exported.changes.isEmpty)
        let bytes = try exporter.encode(exported.document)
        let imported = try HARImporter().importData(bytes, file: "e.har")
        #expect(imported.skipped.isEmpty && imported.changes.isEmpty)
        #expect(imported.cassette.interactions == cassette.interactions)
    }

    @Test("httpVersion and trailers survive the round trip; a browser's HAR version is read")
    func roundTripKeepsVersionAndTrailers() throws {
        var call = Interactions.get("/demo.Greeter/SayHello", answer: "hi")
        call.httpVersion = "2"
        call.response.trailers = ["grpc-status": "0", "grpc-message": "fine"]
        let exporter = HARExporter()
        let bytes = try exporter.encode(exporter.export(Cassette(interactions: [call])).document)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""httpVersion" : "HTTP/2""#) && text.contains(#""_trailers""#), "\(text)")
        let back = try HARImporter().importData(bytes, file: "e.har").cassette.interactions
        #expect(back == [call])
        #expect(HARImporter.httpVersion("h2") == "2" && HARImporter.httpVersion("HTTP/1.1") == "1.1")
        #expect(HARImporter.httpVersion("spdy/3") == nil)
    }

    @Test("a WebSocket conversation goes out and comes back as Chrome's _webSocketMessages")
    func webSocketMessagesRoundTrip() throws {
        var upgrade = Interactions.get("/chat", answer: "")
        upgrade.recordedAt = "2026-11-27T01:00:00.000Z"
        upgrade.response = CassetteResponse(status: 101, headers: ["Upgrade": "websocket"])
        upgrade.websocket = [
            WebSocketMessage(from: .server, atMs: 0.5, content: .text("welcome")),
            WebSocketMessage(from: .client, atMs: 12.25, content: .binary(Data([1, 2, 3]))),
            WebSocketMessage(from: .client, atMs: 20, content: .close(code: 1000, reason: "done")),
        ]
        let exporter = HARExporter()
        let bytes = try exporter.encode(exporter.export(Cassette(interactions: [upgrade])).document)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""_webSocketMessages""#) && text.contains(#""type" : "receive""#) && text.contains(#""opcode" : 2"#), "\(text)")
        #expect(try HARImporter().importData(bytes, file: "e.har").cassette.interactions.first?.websocket == upgrade.websocket)

        // As Chrome writes it: absolute times, a ping (opcode 9) that is not a message.
        let chrome = Data("""
            {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [{
              "startedDateTime": "2026-11-27T01:00:00.000Z", "time": 10,
              "request": {"method": "GET", "url": "wss://echo.example.test/socket", "httpVersion": "HTTP/1.1", "headers": [],
                          "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
              "response": {"status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1", "headers": [],
                           "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
              "cache": {}, "timings": {"send": 0, "wait": 10, "receive": 0},
              "_webSocketMessages": [
                {"type": "send", "time": 1795741200.11, "opcode": 1, "data": "hello"},
                {"type": "receive", "time": 1795741200.2, "opcode": 9, "data": ""},
                {"type": "receive", "time": 1795741200.31, "opcode": 1, "data": "hello back"}]}]}}
            """.utf8)
        let imported = try #require(try HARImporter().importData(chrome, file: "chrome.har").cassette.interactions.first?.websocket)
        #expect(imported.map(\.content) == [.text("hello"), .text("hello back")])
        #expect(imported.map(\.from) == [.client, .server])
        #expect(try HARImporter().importData(chrome, file: "chrome.har").cassette.interactions.first?.request.url == "https://echo.example.test/socket")
        #expect(abs(imported[0].atMs - 100) < 0.01 && abs(imported[1].atMs - 300) < 0.01, "\(imported.map(\.atMs))")
    }

    @Test("origin-form URLs, missing timing and hand-set delays survive the round trip")
    func roundTripKeepsTapedeckOnlyFields() throws {
        var delayed = Interactions.get("/local?x=1", answer: "x", headers: ["Host": "svc.test"], timed: false)
        delayed.delayMs = 25
        let binary = Interaction(request: CassetteRequest(method: "PUT", url: "http://h/blob", headers: ["Content-Type": "application/octet-stream"],
                                                          body: Body(Data([0, 255, 1, 254]))),
                                 response: CassetteResponse(status: 204), timing: Timing(firstByteMs: 1.25, totalMs: 3.5))
        let cassette = Cassette(interactions: [delayed, binary])
        let exporter = HARExporter()
        let document = try exporter.export(cassette).document
        #expect(document.log.entries[0].request.url == "http://svc.test/local?x=1")
        #expect(document.log.entries[1].request.postData?.encoding == "base64")
        let back = try HARImporter().importData(try exporter.encode(document), file: nil).cassette
        #expect(back.interactions == cassette.interactions)
    }

    @Test("export writes base64 content for bytes, text for text, wait for the first byte and time for the total")
    func exportUsesHARConventions() throws {
        let cassette = try Self.example()
        let entries = try HARExporter().export(cassette).document.log.entries
        let png = entries[4]
        #expect(png.response.content.encoding == "base64")
        #expect(Data(base64Encoded: png.response.content.text ?? "") == cassette.interactions[4].response.body.data)
        #expect(png.response.content.mimeType == "image/png")
        #expect(entries[0].response.content.text == "Hello Shawn!" && entries[0].response.content.encoding == nil)
        for (entry, interaction) in zip(entries, cassette.interactions) {
            #expect(entry.time == interaction.timing?.totalMs)
            #expect(entry.timings?.wait == interaction.timing?.firstByteMs)
        }
        let gzip = entries[5]
        #expect(gzip.response.headers.contains(HARNameValue(name: "Content-Encoding", value: "gzip")))
        #expect(gzip.response.content.text?.hasPrefix("{") == true, "HAR content is decoded, as browsers write it")
        #expect(entries[7].response.content.text == "data: one\n\ndata: two\n\ndata: three\n\n")
        #expect(entries[7].chunks?.map(\.atMs) == [0, 50, 100] || entries[7].chunks?.count == 3)
        let form = try #require(entries[1].request.postData)
        #expect(form.params?.map(\.name) == ["name", "sex"])
        #expect(entries[0].request.queryString == [HARNameValue(name: "name", value: "Shawn")])
    }

    @Test("a JSON side file past 32 MiB is exported redacted, piece by piece, and the cassette's bodies are left as they were")
    func largeSideFileIsExportedRedacted() throws {
        let large = #"{"padding": "\#(String(repeating: "p", count: Body.wholeReadLimit))", "password": "hunter2-large"}"#
        let file = try ToolingTestSupport.cassetteWithSideFiles([Interactions.postJSON("http://h/export", body: "{}", answer: large)])
        let bodies = file.deletingLastPathComponent().appendingPathComponent("c.bodies")
        let before = try FileManager.default.contentsOfDirectory(atPath: bodies.path)
        let exported = try HARExporter().export(try CassetteCodec().load(file))
        #expect(exported.changes == ["interactions[0]: response body $..password"])
        let text = try #require(exported.document.log.entries.first?.response.content.text)
        #expect(text.hasSuffix(#"ppp", "password": "\#(Redactor.placeholder)"}"#), "redacted; every other byte as it came")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bodies.path) == before)
    }

    @Test("redaction is carried across: export and import both apply the rules")
    func redactionIsCarriedAcross() throws {
        let secret = Cassette(interactions: [Interactions.postJSON("http://h/login", body: "{\"password\":\"pw\"}")])
        var withHeader = secret
        withHeader.interactions[0].request.headers.append(name: "Authorization", value: ToolingTestSupport.FakeSecret.bearer)
        let exported = try HARExporter().export(withHeader)
        #expect(exported.changes.count == 2)
        let request = exported.document.log.entries[0].request
        #expect(request.headers.contains(HARNameValue(name: "Authorization", value: Redactor.placeholder)))
        #expect(request.postData?.text == "{\"password\":\"\(Redactor.placeholder)\"}")

        let unredacted = try HARExporter(rules: .none).export(withHeader).document
        let imported = try HARImporter().convert(unredacted, file: "h.har")
        #expect(imported.changes == ["interactions[0]: request header Authorization", "interactions[0]: request body $..password"])
        #expect(imported.cassette.interactions[0].request.headers["Authorization"] == Redactor.placeholder)
    }

    @Test("a HAR written by mitmproxy imports and replays with the core player")
    func mitmproxyHARReplays() throws {
        let result = try HARImporter().importFile(ToolingTestSupport.fixture("mitmproxy.har"))
        let cassette = result.cassette
        #expect(cassette.interactions.count == 8)
        #expect(result.changes == ["interactions[2]: request header Authorization"])
        #expect(cassette.meta.recordedWith?.contains("mitmproxy 11.0.2") == true)
        #expect(cassette.interactions[0].recordedAt == "2026-11-21T05:08:03.287Z", "startedDateTime plus time")
        for interaction in cassette.interactions {
            let timing = try #require(interaction.timing)
            #expect(timing.firstByteMs > 0 && timing.firstByteMs <= timing.totalMs)
        }
        let player = Player(cassette: cassette, name: "mitmproxy")

        let hello = try Self.played(player, CassetteRequest(method: "GET", url: "/plaintext?name=Shawn"))
        #expect(hello.response.body.text == "Hello Shawn!")

        let form = try Self.played(player, CassetteRequest(method: "POST", url: "/postName",
                                                            headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                            body: Body(text: "sex=1&name=Shawn")))
        #expect(form.response.body.text?.contains("Hi Shawn") == true)

        let json = try Self.played(player, CassetteRequest(method: "POST", url: "/postBodyData",
                                                            headers: ["Content-Type": "application/json", "Authorization": "Bearer live-one"],
                                                            body: Body(text: "{\"tags\": [\"a\", \"b\"], \"name\": \"Shawn\"}")))
        #expect(json.response.body.text?.contains("\"id\":42") == true)

        let png = try Self.played(player, CassetteRequest(method: "GET", url: "/image.png"))
        #expect(png.response.body.data == (try Self.example()).interactions[4].response.body.data)

        let gzip = try Self.played(player, CassetteRequest(method: "GET", url: "/gzip-json"))
        #expect(gzip.response.contentCoding == .gzip)
        let wire = try gzip.response.wireBody()
        #expect(try ContentCoding.gzip.decode(wire) == gzip.response.body.data)
        #expect(JSONValue(parsing: gzip.response.body.data) != nil)

        let missing = try Self.played(player, CassetteRequest(method: "GET", url: "/users?team=empty"))
        #expect(missing.response.status == 404)
        guard case .unmatched = player.play(CassetteRequest(method: "GET", url: "/users?team=docs")) else {
            Issue.record("a request never recorded must not be served")
            return
        }
    }

    @Test("browser HAR details: pseudo-headers dropped, incomplete entries skipped, params-only forms, br bodies decoded")
    func browserHARDetailsAreHandled() throws {
        let har = """
        {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [], "entries": [
          {"startedDateTime": "2026-11-21T10:00:00.000Z", "time": 120.5, "_initiator": {"type": "script"},
           "request": {"method": "POST", "url": "https://api.test/login#top", "httpVersion": "http/2.0",
             "headers": [{"name": ":authority", "value": "api.test"}, {"name": "content-type", "value": "application/x-www-form-urlencoded"},
                         {"name": "connection", "value": "keep-alive"}],
             "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 20,
             "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "user", "value": "a b"}, {"name": "password", "value": "pw"}]}},
           "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0",
             "headers": [{"name": "content-encoding", "value": "br"}, {"name": "content-length", "value": "13"}, {"name": "content-type", "value": "application/json"}],
             "cookies": [], "content": {"size": 11, "mimeType": "application/json", "text": "{\\"ok\\":true}"},
             "redirectURL": "", "headersSize": -1, "bodySize": 13, "_transferSize": 80},
           "cache": {}, "timings": {"blocked": 2.5, "dns": -1, "ssl": -1, "connect": -1, "send": 0.5, "wait": 100, "receive": 17.5}},
          {"startedDateTime": "2026-11-21T10:00:01.000Z", "time": 0,
           "request": {"method": "GET", "url": "https://api.test/aborted", "httpVersion": "", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"},
             "redirectURL": "", "headersSize": -1, "bodySize": -1, "_error": "net::ERR_ABORTED"},
           "cache": {}, "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0}},
          {"startedDateTime": "2026-11-21T10:00:02.000Z", "time": 3,
           "request": {"method": "GET", "url": "wss://api.test/live", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [], "content": {"size": 0, "mimeType": ""},
             "redirectURL": "", "headersSize": -1, "bodySize": 0},
           "cache": {}, "timings": {"send": 0, "wait": 3, "receive": 0}}
        ]}}
        """
        let result = try HARImporter().importData(Data(har.utf8), file: "chrome.har")
        #expect(result.skipped.count == 2 && result.skipped[0].contains("https://api.test/aborted"))
        // An upgrade whose messages the HAR does not hold (as Firefox writes one) is no answer on its own.
        #expect(result.skipped.last?.contains("wss://api.test/live: status 101 is an interim answer") == true, "\(result.skipped)")
        #expect(result.cassette.interactions.count == 1)
        let interaction = try #require(result.cassette.interactions.first)
        #expect(interaction.request.url == "https://api.test/login")
        #expect(interaction.request.headers.map(\.name) == ["content-type"])
        #expect(interaction.request.body.text == "user=a%20b&password=\(Redactor.placeholder)")
        #expect(interaction.response.headers["content-encoding"] == nil && interaction.response.headers["content-length"] == nil)
        #expect(interaction.response.body.text == "{\"ok\":true}")
        #expect(interaction.timing == Timing(firstByteMs: 103, totalMs: 120.5))
        #expect(interaction.recordedAt == "2026-11-21T10:00:00.120Z" || interaction.recordedAt == "2026-11-21T10:00:00.121Z")
    }

    @Test("every answer imported from the mitmproxy HAR is byte for byte what the live upstream answers today", .requires(.python3))
    func mitmproxyHARMatchesLiveUpstream() async throws {
        let cassette = try HARImporter(rules: .none).importFile(ToolingTestSupport.fixture("mitmproxy.har")).cassette
        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        for interaction in cassette.interactions {
            let target = interaction.request.target
            var request = URLRequest(url: try #require(URL(string: upstream.baseURL + target.path + (target.query.map { "?\($0)" } ?? ""))))
            request.httpMethod = interaction.request.method
            for field in interaction.request.headers where !["host", "content-length"].contains(field.name.lowercased()) {
                request.addValue(field.value, forHTTPHeaderField: field.name)
            }
            if !interaction.request.body.isEmpty { request.httpBody = interaction.request.body.data }
            let (data, response) = try await session.data(for: request)
            let status = try #require(response as? HTTPURLResponse).statusCode
            #expect(status == interaction.response.status, "\(interaction.request.url)")
            #expect(data == interaction.response.body.data, "\(interaction.request.url)")
        }
    }

    @Test("a Polly.js HAR imports: _isBinary base64 content, chunked base64, lower-case headers")
    func pollyHARImports() throws {
        let png = try Self.example().interactions[4].response.body.data
        let half = png.count / 2
        let chunked = String(decoding: try JSONEncoder().encode([png[..<half].base64EncodedString(), png[half...].base64EncodedString()]), as: UTF8.self)
        func entry(_ path: String, _ text: String, order: Int) -> String {
            let escaped = String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
            return """
            {"_id": "5c0d0a6f\(order)", "_order": 0, "cache": {}, "startedDateTime": "2026-11-21T05:08:03.284Z", "time": 12,
             "request": {"bodySize": 0, "cookies": [], "headers": [{"_fromType": "array", "name": "accept", "value": "image/png"}],
               "headersSize": 120, "httpVersion": "HTTP/1.1", "method": "GET", "queryString": [], "url": "http://127.0.0.1:1234\(path)"},
             "response": {"bodySize": 462, "content": {"_isBinary": true, "mimeType": "image/png", "size": 462, "encoding": "base64",
               "text": \(escaped)}, "cookies": [], "headers": [{"name": "content-type", "value": "image/png"}], "headersSize": 200,
               "httpVersion": "HTTP/1.1", "redirectURL": "", "status": 200, "statusText": "OK"},
             "timings": {"blocked": -1, "connect": -1, "dns": -1, "receive": 0, "send": 0, "ssl": -1, "wait": 12}}
            """
        }
        let har = """
        {"log": {"_recordingName": "images", "browser": null, "creator": {"comment": "persister:fs", "name": "Polly.JS", "version": "6.0.6"},
          "entries": [\(entry("/image.png", png.base64EncodedString(), order: 0)), \(entry("/image.png?v=2", chunked, order: 1))],
          "pages": [], "version": "1.2"}}
        """
        let cassette = try HARImporter().importData(Data(har.utf8), file: "polly.har").cassette
        #expect(cassette.interactions.map(\.response.body.data) == [png, png])
        #expect(cassette.interactions[0].timing == Timing(firstByteMs: 12, totalMs: 12))
        let player = Player(cassette: cassette, name: "polly")
        #expect(try Self.played(player, CassetteRequest(method: "GET", url: "/image.png?v=2")).response.headers["Content-Type"] == "image/png")
    }

    @Test("a HAR that is not one is bad input naming the place", arguments: [
        ("not json", ""),
        ("{\"log\": {\"version\": \"1.2\", \"creator\": {\"name\": \"x\", \"version\": \"1\"}}}", "log.entries"),
        ("{\"log\": {\"version\": \"1.2\", \"creator\": {\"name\": \"x\", \"version\": \"1\"}, \"entries\": [{\"startedDateTime\": \"\", \"time\": 1, \"request\": {\"method\": \"GET\", \"url\": \"http://h/\", \"headers\": []}, \"response\": {\"headers\": [], \"content\": {}}}]}}",
         "log.entries[0].response.status"),
        ("{\"log\": {\"version\": \"1.2\", \"creator\": {\"name\": \"x\", \"version\": \"1\"}, \"entries\": [{\"startedDateTime\": \"\", \"time\": 1, \"request\": {\"method\": \"GET\", \"url\": \"/relative\", \"headers\": []}, \"response\": {\"status\": 200, \"headers\": [], \"content\": {}}}]}}",
         "log.entries[0].request.url"),
        ("{\"log\": {\"version\": \"1.2\", \"creator\": {\"name\": \"x\", \"version\": \"1\"}, \"entries\": [{\"startedDateTime\": \"\", \"time\": 1, \"request\": {\"method\": \"GET\", \"url\": \"http://h/\", \"headers\": []}, \"response\": {\"status\": 200, \"headers\": [], \"content\": {\"text\": \"***\", \"encoding\": \"base64\"}}}]}}",
         "log.entries[0].response.content.text"),
    ])
    func badHARIsBadInput(text: String, place: String) {
        do {
            _ = try HARImporter().importData(Data(text.utf8), file: "bad.har")
            Issue.record("expected bad input")
        } catch {
            #expect(error.isBadInput)
            guard case .badInput(let path, _) = error.kind else { Issue.record("\(error)"); return }
            #expect(path == place, "\(error)")
            #expect(error.description.hasPrefix("bad.har: "))
        }
    }

    @Test("a HAR file that is not JSON is told with the line and column of its first syntax error, as a cassette is")
    func brokenJSONIsPlaced() {
        #expect { try HARImporter().importData(Data("{\"log\": {\n  \"entries\": [1,,]}}".utf8), file: "bad.har") } throws: {
            "\($0)".hasPrefix("bad.har: ") && "\($0)".contains("not valid JSON at line 2, column ")
        }
    }

    @Test("tapedeck har export then har import gives the same cassette interactions")
    func commandsRoundTrip() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let har = folder.appendingPathComponent("example.har")
        let back = folder.appendingPathComponent("back.json")
        let export = try ToolingTestSupport.tapedeck("har", "export", ToolingTestSupport.exampleCassette.path, "-o", har.path)
        #expect(export.status == 0, "\(export.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any]
        #expect((object?["log"] as? [String: Any])?["version"] as? String == "1.2")
        let importRun = try ToolingTestSupport.tapedeck("har", "import", har.path, "-o", back.path)
        #expect(importRun.status == 0, "\(importRun.stderr)")
        #expect(try CassetteCodec().load(back).interactions == (try Self.example()).interactions)
        let missing = try ToolingTestSupport.tapedeck("har", "import", folder.appendingPathComponent("none.har").path, "-o", back.path)
        #expect(missing.status == 2)
    }
}
