import Foundation
import Testing
import TapedeckCore
@testable import TapedeckTooling

@Suite("VCR import")
struct VCRTests {
    static func played(_ player: Player, _ request: CassetteRequest) throws -> Interaction {
        switch player.play(request) {
        case .played(let playback): return playback.interaction
        case .unmatched(let diagnosis): throw TestSupportError("unmatched: \(diagnosis)")
        }
    }

    static var examplePNG: Data {
        get throws { try CassetteCodec().load(ToolingTestSupport.exampleCassette).interactions[4].response.body.data }
    }

    @Test("a Ruby VCR cassette imports (base64_string, compressed body, recorded_at) and replays")
    func rubyVCRImportsAndReplays() throws {
        let result = try VCRImporter().importFile(ToolingTestSupport.fixture("ruby_vcr.yml"))
        #expect(result.flavor == .rubyVCR)
        let cassette = result.cassette
        #expect(cassette.interactions.count == 6)
        #expect(cassette.meta.recordedWith?.hasSuffix("VCR 6.2.0") == true)
        #expect(cassette.interactions.allSatisfy { $0.request.method == $0.request.method.uppercased() })
        #expect(cassette.interactions[0].recordedAt?.hasSuffix("Z") == true)
        #expect(cassette.interactions[3].response.body.data == (try Self.examplePNG))
        let gzip = cassette.interactions[4].response
        #expect(gzip.contentCoding == .gzip)
        #expect(JSONValue(parsing: gzip.body.data) != nil, "the gzip body VCR kept compressed is stored decoded")

        let player = Player(cassette: cassette, name: "ruby")
        #expect(try Self.played(player, CassetteRequest(method: "GET", url: "/plaintext?name=Shawn")).response.body.text == "Hello Shawn!")
        let json = try Self.played(player, CassetteRequest(method: "POST", url: "/postBodyData", headers: ["Content-Type": "application/json"],
                                                            body: Body(text: "{\"tags\":[\"a\",\"b\"],\"name\":\"Shawn\"}")))
        #expect(json.response.body.text?.contains("\"id\":42") == true)
        #expect(try Self.played(player, CassetteRequest(method: "GET", url: "/users?team=empty")).response.status == 404)
        #expect(CassetteLinter().lint(cassette, file: "ruby").allSatisfy { $0.kind == .timing })
    }

    @Test("a vcrpy cassette imports (null bodies, !!binary, lists of header values) and replays")
    func vcrpyImportsAndReplays() throws {
        let result = try VCRImporter().importFile(ToolingTestSupport.fixture("vcrpy.yaml"))
        #expect(result.flavor == .vcrpy)
        let cassette = result.cassette
        #expect(cassette.interactions.count == 7)
        #expect(cassette.interactions[0].request.body.isEmpty)
        #expect(cassette.interactions[0].request.headers["Connection"] == nil, "hop-by-hop headers are not stored")
        #expect(cassette.interactions[3].response.body.data == (try Self.examplePNG))

        let player = Player(cassette: cassette, name: "vcrpy")
        let form = try Self.played(player, CassetteRequest(method: "POST", url: "http://127.0.0.1:44883/postName",
                                                            headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                            body: Body(text: "sex=1&name=Shawn")))
        #expect(form.response.body.text == "{\"name\":\"Shawn\",\"sex\":\"1\",\"greeting\":\"Hi Shawn\"}")
        let gzip = try Self.played(player, CassetteRequest(method: "GET", url: "/gzip-json"))
        #expect(try ContentCoding.gzip.decode(try gzip.response.wireBody()) == gzip.response.body.data)
        #expect(try Self.played(player, CassetteRequest(method: "GET", url: "/users?team=core")).response.body.text?.contains("Xiaoming") == true)
        guard case .unmatched = player.play(CassetteRequest(method: "GET", url: "http://other.test:44883/users?team=core")) else {
            Issue.record("a request for another host must not be served")
            return
        }
    }

    @Test("YAML that is not a VCR cassette is bad input naming the place", arguments: [
        ("a: [unclosed", ""),
        ("something_else: 1\n", ""),
        ("interactions:\n- request: {method: GET}\n  response: {status: {code: 200}}\n", "interactions[0].request.uri"),
        ("http_interactions:\n- request: {method: get, uri: 'http://h/'}\n  response: {status: {code: 42}}\n", "http_interactions[0].response.status"),
        ("http_interactions:\n- request: {method: get, uri: 'http://h/'}\n  response: {status: {code: 100}}\n", "http_interactions[0].response.status"),
        ("http_interactions:\n- request: {method: get, uri: 'http://h/'}\n  response:\n    status: {code: 200}\n    body: {base64_string: '***'}\n",
         "http_interactions[0].response.body.base64_string"),
    ])
    func badYAMLIsBadInput(text: String, place: String) {
        do {
            _ = try VCRImporter().importYAML(text, file: "bad.yml")
            Issue.record("expected bad input")
        } catch {
            guard case .badInput(let path, _) = error.kind else { Issue.record("\(error)"); return }
            #expect(path == place, "\(error)")
            #expect(error.isBadInput)
        }
    }

    @Test("a cassette file that starts with a UTF-8 byte order mark imports as without it; a missing file is bad input")
    func byteOrderMarkIsDropped() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let marked = folder.appendingPathComponent("marked.yml")
        try (Data([0xef, 0xbb, 0xbf]) + Data(contentsOf: ToolingTestSupport.fixture("ruby_vcr.yml"))).write(to: marked)
        let result = try VCRImporter().importFile(marked)
        #expect(result.flavor == .rubyVCR)
        #expect(result.cassette.interactions.count == 6)
        let missing = folder.appendingPathComponent("missing.yml")
        #expect { try VCRImporter().importFile(missing) } throws: { error in
            "\(error)".contains("missing.yml") && "\(error)".contains("cannot read")
        }
    }

    @Test("tapedeck import-vcr writes a cassette that loads; bad input exits 2")
    func commandImports() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        let output = folder.appendingPathComponent("imported.json")
        let outcome = try ToolingTestSupport.tapedeck("import-vcr", ToolingTestSupport.fixture("vcrpy.yaml").path, "-o", output.path)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("7 interactions imported"))
        #expect(try CassetteCodec().load(output).interactions.count == 7)
        let bad = folder.appendingPathComponent("bad.yml")
        try Data("interactions: 3\n".utf8).write(to: bad)
        let refused = try ToolingTestSupport.tapedeck("import-vcr", bad.path, "-o", output.path)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("bad.yml: interactions: expected a list"))
    }
}
