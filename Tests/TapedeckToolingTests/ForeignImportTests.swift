import Foundation
import Testing
import TapedeckCore
@testable import TapedeckTooling

/// Every peer's recordings, as their tools wrote them (see Fixtures/SOURCES.md), imported and then
/// replayed through the core Player.
@Suite("Importing every peer's cassettes")
struct ForeignImportTests {
    static func load(_ name: String) throws -> ForeignImportResult {
        try ForeignCassetteImporter().importFile(ToolingTestSupport.fixture(name))
    }

    static func played(_ cassette: Cassette, _ request: CassetteRequest) throws -> Interaction {
        try VCRTests.played(Player(cassette: cassette, name: "imported"), request)
    }

    // MARK: go-vcr

    @Test("go-vcr format 2 (go-vcr v4): url, code, duration as timing; replays")
    func goVCRVersion2() throws {
        let result = try Self.load("govcr/v2-json-content-type.yaml")
        #expect(result.layout == "go-vcr")
        let interaction = try #require(result.cassette.interactions.first)
        #expect(interaction.request.url == "https://httpbin.org/anything")
        #expect(interaction.request.headers["Authorization"] == Redactor.placeholder)
        #expect(interaction.response.status == 200)
        #expect(interaction.timing == Timing(firstByteMs: 2086.618, totalMs: 2086.618))
        #expect(result.cassette.meta.recordedWith?.hasSuffix("go-vcr") == true)
        let served = try Self.played(result.cassette, CassetteRequest(
            method: "GET", url: "https://httpbin.org/anything", headers: ["Content-Type": "application/json"]))
        let json = try #require(JSONValue(parsing: served.response.body.data))
        #expect(json == JSONValue(parsing: interaction.response.body.data))
        #expect(served.response.body.text?.contains("\"url\": \"https://httpbin.org/anything\"") == true)
    }

    @Test("go-vcr format 2: form and JSON posts, a query, a redirect chain; every request replays")
    func goVCRMiddlewareAndRedirects() throws {
        let cassette = try Self.load("govcr/v2-middleware.yaml").cassette
        #expect(cassette.interactions.map(\.request.method) == ["GET", "GET", "POST", "POST"])
        #expect(try Self.played(cassette, CassetteRequest(method: "GET", url: "http://go-vcr/request1")).response.body.text == "OK")
        let form = try Self.played(cassette, CassetteRequest(method: "POST", url: "http://go-vcr/postform",
                                                             headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                             body: Body(text: "key=value")))
        #expect(form.response.headers["Key"] == "VALUE")
        #expect(cassette.interactions.allSatisfy { $0.timing == Timing(firstByteMs: 0, totalMs: 0) })

        let redirects = try Self.load("govcr/v2-golang-org.yaml").cassette
        #expect(redirects.interactions.map(\.response.status) == [302, 301, 200])
        #expect(redirects.interactions[0].timing?.totalMs == 460.639)
        let page = try Self.played(redirects, CassetteRequest(method: "GET", url: "https://go.dev/"))
        #expect(page.response.body.text?.contains("<html") == true)
        #expect(page.response.headers["Content-Encoding"] == nil, "go-vcr recorded it uncompressed")
    }

    @Test("go-vcr format 1 (go-vcr v1): PUT with a form body, then GET; no duration, no timing")
    func goVCRVersion1() throws {
        let result = try Self.load("govcr/v1-etcd.yaml")
        #expect(result.layout == "go-vcr")
        let cassette = result.cassette
        #expect(cassette.interactions.map(\.response.status) == [201, 200])
        #expect(cassette.interactions[0].request.body.text == "value=bar")
        #expect(cassette.interactions[0].timing == nil)
        let got = try Self.played(cassette, CassetteRequest(
            method: "GET", url: "http://127.0.0.1:2379/v2/keys/foo?sorted=false&recursive=false&quorum=false"))
        #expect(got.response.body.text?.contains("\"action\":\"get\"") == true)
    }

    @Test("an unknown go-vcr format version and an unknown layout are refused, naming the layouts known")
    func unknownLayouts() throws {
        let future = "---\nversion: 4\ninteractions:\n- request:\n    url: http://a.test/\n    method: GET\n  response:\n    code: 200\n"
        #expect {
            try ForeignCassetteImporter().importData(Data(future.utf8), file: "future.yaml")
        } throws: { error in
            guard let error = error as? ToolingError else { return false }
            return "\(error)".contains("future.yaml: version: go-vcr cassette format version 4 is not known")
        }
        for (text, place) in [("---\nrecords:\n- a: 1\n", ""), ("{\"entries\": []}", ""),
                              ("interactions:\n- request:\n    method: GET\n    target: /x\n  response: {}\n", "interactions[0].request.uri")] {
            #expect {
                try ForeignCassetteImporter().importData(Data(text.utf8), file: "odd.yaml")
            } throws: { error in
                guard let error = error as? ToolingError, case .badInput(let path, let message) = error.kind else { return false }
                return path == place && message.contains("Ruby VCR (http_interactions)") && message.contains("go-vcr format version 1 or 2")
                    && message.contains("vcrpy")
            }
        }
        let tapedeck = try Data(contentsOf: ToolingTestSupport.exampleCassette)
        #expect(throws: ToolingError.self) { try ForeignCassetteImporter().importData(tapedeck, file: "example.json") }
    }

    @Test("Go durations as go-vcr writes them")
    func goDurations() {
        #expect(GoDuration.milliseconds("460.639208ms") == 460.639)
        #expect(GoDuration.milliseconds("2.086618375s") == 2086.618)
        #expect(GoDuration.milliseconds("1m30.5s") == 90_500)
        #expect(GoDuration.milliseconds("1h") == 3_600_000)
        #expect(GoDuration.milliseconds("750µs") == 0.75)
        #expect(GoDuration.milliseconds("1500ns") == 0.002)
        #expect(GoDuration.milliseconds("0s") == 0)
        #expect(GoDuration.milliseconds("0") == 0)
        #expect(GoDuration.milliseconds("fast") == nil)
        #expect(GoDuration.milliseconds("12") == nil)
    }

    // MARK: vcrpy

    @Test("vcrpy's older httpx layout (content, status_code, http_version) imports and replays, gzip encoded again")
    func vcrpyOldHTTPX() throws {
        let result = try Self.load("vcrpy/gzip_httpx_old_format.yaml")
        #expect(result.layout == "vcrpy")
        let response = try #require(result.cassette.interactions.first).response
        #expect(response.status == 200)
        #expect(response.contentCoding == .gzip, "the text was decoded by httpx: stored decoded, header kept")
        #expect(!response.body.isEncoded)
        #expect(JSONValue(parsing: response.body.data) != nil)
        let served = try Self.played(result.cassette, CassetteRequest(method: "GET", url: "https://httpbin.org/gzip"))
        #expect(try ContentCoding.gzip.decode(try served.response.wireBody()) == response.body.data)
    }

    @Test("vcrpy JSON cassettes and flow-style YAML with a !!binary gzip body")
    func vcrpyJSONAndBinary() throws {
        let json = try Self.load("vcrpy/new_cassette.json")
        #expect(json.layout == "vcrpy")
        #expect(try Self.played(json.cassette, CassetteRequest(method: "GET", url: "http://httpbin.org/ip")).response.body.text
                == "{\n  \"origin\": \"217.122.164.194\"\n}")
        let redirect = try Self.load("vcrpy/domain_redirect.yaml").cassette
        #expect(redirect.interactions.map(\.response.status) == [301, 200])
        let page = try Self.played(redirect, CassetteRequest(method: "GET", url: "http://moz.com/"))
        #expect(page.response.contentCoding == .gzip)
        #expect(page.response.body.text?.lowercased().contains("<html") == true, "the !!binary gzip body is stored decoded")
    }

    // MARK: Polly.js

    @Test("Polly 1.3.1: header values and mimeType as arrays, a gzip body as a JSON array of hex chunks")
    func pollyArraysAndHexChunks() throws {
        let result = try Self.load("pollyjs/polly-1.3.1-compressed.har")
        #expect(result.layout == "HAR from Polly.JS 1.3.1")
        let interaction = try #require(result.cassette.interactions.first)
        #expect(interaction.request.headers["content-type"] == "application/json")
        #expect(interaction.request.headers["accept"] == "*/*")
        #expect(interaction.response.contentCoding == .gzip)
        #expect(interaction.response.body.text == #"{"foo":"bar"}"#, "the hex chunks are decoded, then the gzip")
        let served = try Self.played(result.cassette, CassetteRequest(method: "POST", url: "http://localhost:4000/compress",
                                                                      headers: ["Content-Type": "application/json"]))
        #expect(try ContentCoding.gzip.decode(try served.response.wireBody()) == Data(#"{"foo":"bar"}"#.utf8))
    }

    @Test("Polly 1.3.1: a PNG written as unmarked hex text is decoded to its bytes")
    func pollyHexBinary() throws {
        let interaction = try #require(try Self.load("pollyjs/polly-1.3.1-binary.har").cassette.interactions.first)
        let png = interaction.response.body.data
        #expect(png.count == 373)
        #expect(png.starts(with: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    }

    @Test("Polly 1.2.0 and 5.1.1 (_isBinary): gzip hex chunks decoded; replayed JSON is the recorded body")
    func pollyGzipVersions() throws {
        let old = try Self.load("pollyjs/polly-1.2.0-node-fetch.har").cassette
        let post = try Self.played(old, CassetteRequest(method: "GET", url: "https://jsonplaceholder.typicode.com/posts/1"))
        #expect(post.response.body.text?.contains("\"userId\": 1") == true)
        #expect(post.response.headers.values(for: "set-cookie") == [Redactor.placeholder])

        let new = try Self.load("pollyjs/polly-5.1.1-gzip-isbinary.har").cassette
        let user = try Self.played(new, CassetteRequest(method: "GET", url: "https://api.github.com/users/netflix",
                                                        headers: ["Content-Type": "application/json"]))
        #expect(user.response.contentCoding == .gzip)
        #expect(JSONValue(parsing: user.response.body.data) != nil)
        #expect(user.response.body.text?.contains("\"login\":\"Netflix\"") == true)
    }

    @Test("a Polly body marked _isBinary that is not hex is refused with its place")
    func pollyBadHex() throws {
        let text = """
        {"log": {"version": "1.2", "creator": {"name": "Polly.JS", "version": "5.1.1"}, "entries": [{
          "startedDateTime": "2022-02-19T05:56:54.000Z", "time": 1,
          "request": {"method": "GET", "url": "https://a.test/", "headers": []},
          "response": {"status": 200, "headers": [], "content": {"mimeType": "image/png", "_isBinary": true, "text": "zz"}}}]}}
        """
        #expect {
            try ForeignCassetteImporter().importData(Data(text.utf8), file: "bad.har")
        } throws: { error in
            guard let error = error as? ToolingError, case .badInput(let path, _) = error.kind else { return false }
            return path == "log.entries[0].response.content.text"
        }
    }

    // MARK: browsers

    @Test("Chrome: pseudo-headers dropped, status 0 skipped, the 304 kept for conditional requests only")
    func chrome() throws {
        let result = try Self.load("browsers/chrome.har")
        #expect(result.layout == "HAR from WebInspector 537.36")
        #expect(result.skipped.count == 1)
        let cassette = result.cassette
        #expect(cassette.interactions.count == 2)
        #expect(cassette.interactions.allSatisfy { $0.request.headers.allSatisfy { !$0.name.hasPrefix(":") } })
        let logo = try Self.played(cassette, CassetteRequest(
            method: "GET", url: "https://www.google.com/images/branding/googlelogo/2x/googlelogo_light_color_272x92dp.png"))
        #expect(logo.response.body.data.starts(with: [0x89, 0x50, 0x4e, 0x47]))
        let revalidation = try Self.played(cassette, CassetteRequest(method: "GET", url: "https://mitmproxy.org/", headers: [
            "If-None-Match": "W/\"a1550c2bd25c5bcfef789d730f5bbddf\"", "If-Modified-Since": "Sat, 04 Mar 2023 18:02:08 GMT"]))
        #expect(revalidation.response.status == 304)
        #expect(!ResponseBodyRule.statusAllowsBody(revalidation.response.status), "the door sends no body for it")
    }

    @Test("Firefox: gzip bodies stored decoded and encoded again on replay, a base64 icon decoded")
    func firefox() throws {
        let cassette = try Self.load("browsers/firefox.har").cassette
        #expect(cassette.interactions.count == 14)
        let script = try Self.played(cassette, CassetteRequest(method: "GET", url: "https://mitmproxy.org/polyfills.js"))
        #expect(script.response.contentCoding == .gzip)
        #expect(script.response.body.data.count == 11800)
        #expect(try ContentCoding.gzip.decode(try script.response.wireBody()) == script.response.body.data)
        let icon = try Self.played(cassette, CassetteRequest(method: "GET", url: "https://mitmproxy.org/favicon.ico"))
        #expect(icon.response.body.data.count == 98065)
    }

    @Test("Insomnia, a HEAD from Firefox, and a HAR starting with a byte order mark")
    func insomniaHeadAndBOM() throws {
        let insomnia = try Self.load("browsers/insomnia.har")
        #expect(insomnia.layout.hasPrefix("HAR from Insomnia REST Client"))
        #expect(try Self.played(insomnia.cassette, CassetteRequest(method: "GET", url: "http://mitm.it/")).response.body.data.count == 250)
        let head = try #require(try Self.load("browsers/head-content-length.har").cassette.interactions.first)
        #expect(head.request.method == "HEAD")
        #expect(try Self.played(Cassette(meta: CassetteMeta(), interactions: [head]), head.request).response.status == 200)
        let bom = try Self.load("browsers/with-bom.har")
        #expect(!bom.cassette.interactions.isEmpty)
        #expect(try HARImporter().importFile(ToolingTestSupport.fixture("browsers/with-bom.har")).cassette.interactions.count
                == bom.cassette.interactions.count)
    }

    // MARK: bodies that do not decode

    @Test("a gzip body in a VCR cassette that does not decode is kept as recorded and marked, and HAR export keeps it")
    func undecodableBodyKept() throws {
        let broken = Data([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02, 0x03, 0xff, 0xfe, 0xfd])
        let yaml = """
        interactions:
        - request: {body: null, headers: {}, method: GET, uri: 'http://a.test/x'}
          response:
            body: {string: !!binary "\(broken.base64EncodedString())"}
            headers: {Content-Encoding: [gzip]}
            status: {code: 200, message: OK}
        version: 1
        """
        let response = try #require(try VCRImporter().importYAML(yaml, file: "broken.yaml").cassette.interactions.first).response
        #expect(response.body.isEncoded)
        #expect(response.body.data == broken)
        #expect(try response.wireBody() == broken, "replay sends exactly what was received")
        let har = try HARExporter().export(Cassette(meta: CassetteMeta(), interactions: [
            Interaction(request: CassetteRequest(method: "GET", url: "http://a.test/x"), response: response)])).document
        let back = try HARImporter().convert(har, file: nil).cassette.interactions[0].response
        #expect(back.body.isEncoded && back.body.data == broken)
    }

    // MARK: the command line

    @Test("import-vcr and har import each take any known layout, and say which")
    func commandsRecogniseTheLayout() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let output = folder.appendingPathComponent("out.json")
        let goVCR = try ToolingTestSupport.tapedeck("import-vcr", ToolingTestSupport.fixture("govcr/v2-middleware.yaml").path,
                                                    "-o", output.path)
        #expect(goVCR.status == 0, "\(goVCR.stderr)")
        #expect(goVCR.stdout.contains("4 interactions imported") && goVCR.stdout.contains("(go-vcr)"))
        #expect(try CassetteCodec().load(output).interactions.count == 4)
        let polly = try ToolingTestSupport.tapedeck("import-vcr", ToolingTestSupport.fixture("pollyjs/polly-1.3.1-binary.har").path,
                                                    "-o", output.path)
        #expect(polly.status == 0, "\(polly.stderr)")
        #expect(polly.stdout.contains("(HAR from Polly.JS 1.3.1)"))
        let vcrpy = try ToolingTestSupport.tapedeck("har", "import", ToolingTestSupport.fixture("vcrpy/gzip_httpx_old_format.yaml").path,
                                                    "-o", output.path)
        #expect(vcrpy.status == 0, "\(vcrpy.stderr)")
        #expect(vcrpy.stdout.contains("(vcrpy)"))
        let odd = folder.appendingPathComponent("odd.yaml")
        try Data("records: []\n".utf8).write(to: odd)
        let refused = try ToolingTestSupport.tapedeck("import-vcr", odd.path, "-o", output.path)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("go-vcr format version 1 or 2"))
    }
}
