import Foundation
import Testing
@testable import TapedeckCore

@Suite("Cassette format version 1")
struct CassetteCodecTests {
    let codec = CassetteCodec()

    @Test("text, base64 and json bodies read as exact bytes")
    func bodyForms() throws {
        let json = """
        {"version": 1, "interactions": [{
          "request": {"method": "POST", "url": "/a", "headers": {}, "body": {"json": {"b": 1.0, "a": [true, null]}}},
          "response": {"status": 200, "headers": {"X": ["1", "2"]}, "body": {"base64": "AP8Q"}}
        }, {
          "request": {"method": "GET", "url": "/b", "headers": {}},
          "response": {"status": 204, "headers": {}, "body": {"text": "héllo"}}
        }]}
        """
        let decoded = try codec.decode(Data(json.utf8))
        #expect(decoded.interactions[0].request.body.style == .json)
        #expect(JSONValue(parsing: decoded.interactions[0].request.body.data) == JSONValue(parsing: Data(#"{"a":[true,null],"b":1}"#.utf8)))
        #expect(decoded.interactions[0].response.body.data == Data([0x00, 0xFF, 0x10]))
        #expect(decoded.interactions[0].response.headers.values(for: "x") == ["1", "2"])
        #expect(decoded.interactions[1].response.body.text == "héllo")
        #expect(decoded.interactions[1].request.body.isEmpty)
    }

    @Test("writing is deterministic and a round trip keeps every interaction")
    func deterministicRoundTrip() throws {
        let original = cassette([
            interaction(request("GET", "https://api.example.test/users?b=2&a=1", headers: ["Accept": "application/json"]),
                        body: "{\"id\":1}", headers: ["Set-Cookie": "a=1", "set-cookie": "b=2"],
                        timing: Timing(firstByteMs: 12.4, totalMs: 15)),
            Interaction(request: request("POST", "/bin"),
                        response: CassetteResponse(status: 200, body: Body(Data([0xC3, 0x28, 0x00]))),
                        delayMs: 5, chunks: [StreamChunk(atMs: 0, data: Data("data: a\n\n".utf8))]),
        ])
        let first = try codec.encode(original).bytes
        let second = try codec.encode(try codec.decode(first)).bytes
        #expect(first == second)
        #expect(try codec.decode(first) == original)
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.contains("\"base64\" : \"wygA\""))
        #expect(text.hasPrefix("{\n  \"interactions\" : [\n    {"))
        #expect(text.hasSuffix("\"version\" : 1\n}\n"))
    }

    @Test("an empty cassette round-trips")
    func emptyCassette() throws {
        let bytes = try codec.encode(cassette([])).bytes
        #expect(try codec.decode(bytes).interactions.isEmpty)
    }

    @Test("bad JSON is reported with line and column")
    func syntaxErrorPlace() {
        let text = "{\n  \"version\": 1,\n  \"interactions\": [,]\n}"
        expectSyntaxError(CassetteError(file: "/x/broken.json", kind: .syntax(line: 3, column: 20, message: ""))) {
            try codec.decode(Data(text.utf8), file: URL(fileURLWithPath: "/x/broken.json"))
        }
    }

    @Test("truncated JSON is reported at its end")
    func truncatedJSON() throws {
        let text = "{\n  \"version\": 1,\n  \"interactions\": ["
        let error = try #require(throws: CassetteError.self) { try codec.decode(Data(text.utf8)) }
        guard case let .syntax(line, _, _) = error.kind else { Issue.record("expected a syntax error, got \(error)"); return }
        #expect(line == 3)
    }

    @Test("bad content is reported with its JSON path")
    func contentErrorPath() throws {
        let text = """
        {"version": 1, "interactions": [
          {"request": {"method": "GET", "url": "/", "headers": {}}, "response": {"status": 200, "headers": {}}},
          {"request": {"method": "GET", "url": "/", "headers": {}}, "response": {"status": "200", "headers": {}}}
        ]}
        """
        let error = try #require(throws: CassetteError.self) {
            try codec.decode(Data(text.utf8), file: URL(fileURLWithPath: "/tmp/c.json"))
        }
        guard case let .content(path, _) = error.kind else { Issue.record("expected a content error, got \(error)"); return }
        #expect(path == "interactions[1].response.status")
        #expect(error.description.hasPrefix("/tmp/c.json: interactions[1].response.status: "))
    }

    @Test("a value of the wrong type is told in the project's words, the top level with the shape it must have")
    func wrongTypesInTheProjectsWords() throws {
        func message(_ text: String, _ codec: CassetteCodec = CassetteCodec()) throws -> String {
            try #require(throws: CassetteError.self) { try codec.decode(Data(text.utf8), file: URL(fileURLWithPath: "/tmp/c.json")) }.description
        }
        #expect(try message("[]") == #"/tmp/c.json: cassette: expected an object {"version": 1, "interactions": [...]}, found an array"#)
        #expect(try message("[]", CassetteCodec(reading: .stubs)) == #"/tmp/c.json: stubs file: expected an object {"version": 1, "stubs": [...]}, found an array"#)
        #expect(try message(#"{"version": 1, "stubs": {"a": 1}}"#, CassetteCodec(reading: .stubs))
                == "/tmp/c.json: stubs: expected an array, found an object")
        #expect(try message(#"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/"}, "response": {"status": "two hundred"}}]}"#)
                == #"/tmp/c.json: interactions[0].response.status: expected an integer, found the string "two hundred""#)
        #expect(try message(#"{"version": 1, "interactions": [{"request": {"method": null, "url": "/"}, "response": {"status": 200}}]}"#)
                == "/tmp/c.json: interactions[0].request.method: expected a string, found null")
        #expect(try message(#"{"version": 1, "interactions": [[]]}"#) == "/tmp/c.json: interactions[0]: expected an object, found an array")
        let stubError = try #require(throws: CassetteError.self) { try Stub.decodeList(from: Data("[1]".utf8)) }
        #expect(stubError.description == #"cassette: request body: expected an object {"request": {...}, "response": {...}} or {"stubs": [...]}, found an array"#)
    }

    @Test("a missing field and a body with two forms are reported by path")
    func missingFieldAndDoubleBody() throws {
        let missing = #"{"version": 1, "interactions": [{"request": {"url": "/", "headers": {}}, "response": {"status": 200}}]}"#
        let first = try #require(throws: CassetteError.self) { try codec.decode(Data(missing.utf8)) }
        #expect(first.kind == .content(path: "interactions[0].request.method", message: "required field is missing"))
        let double = #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/", "body": {"text": "a", "base64": "YQ=="}}, "response": {"status": 200}}]}"#
        let second = try #require(throws: CassetteError.self) { try codec.decode(Data(double.utf8)) }
        guard case let .content(path, message) = second.kind else { Issue.record("\(second)"); return }
        #expect(path == "interactions[0].request.body")
        #expect(message.contains("exactly one"))
    }

    @Test("an unknown version is refused by name, never guessed")
    func unknownVersion() throws {
        let error = try #require(throws: CassetteError.self) {
            try codec.decode(Data(#"{"version": 2, "interactions": "whatever"}"#.utf8), file: URL(fileURLWithPath: "/tmp/v2.json"))
        }
        #expect(error.kind == .unsupportedVersion(2))
        #expect(error.description.contains("/tmp/v2.json"))
        #expect(error.description.contains("version 2"))
    }

    @Test("large bodies go to content-addressed side files and come back")
    func sideFiles() throws {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("big.json")
        let large = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let small = CassetteCodec(sideFileThreshold: 1024)
        try small.save(cassette([Interaction(request: request("GET", "/big"),
                                             response: CassetteResponse(status: 200, body: Body(large)))]), to: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"file\" : \"big.bodies/"))
        let bodies = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("big.bodies").path)
        #expect(bodies.count == 1 && bodies[0].hasSuffix(".bin") && bodies[0].count == 64 + 4)
        #expect(try small.load(file).interactions[0].response.body.data == large)
    }

    @Test("a side file name that leaves the bodies folder is refused")
    func sideFileEscape() throws {
        let folder = try makeTemporaryDirectory()
        let text = #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/"}, "response": {"status": 200, "body": {"file": "../etc/passwd"}}}]}"#
        let error = try #require(throws: CassetteError.self) {
            try codec.decode(Data(text.utf8), file: folder.appendingPathComponent("c.json"))
        }
        guard case let .content(path, message) = error.kind else { Issue.record("\(error)"); return }
        #expect(path == "interactions[0].response.body.file")
        #expect(message.contains("NAME.bodies"))
    }

    @Test("an unreadable file is an I/O error naming it")
    func missingFile() throws {
        let error = try #require(throws: CassetteError.self) { try codec.load(URL(fileURLWithPath: "/nonexistent/x.json")) }
        guard case .io = error.kind else { Issue.record("\(error)"); return }
        #expect(error.description == "/nonexistent/x.json: cannot read: no such file", "\(error)")
    }

    /// A folder given for a cassette (`tapedeck replay cassettes/`) says it is a folder; Foundation's
    /// own text for it was only "The operation could not be completed".
    @Test("a folder given for a cassette says so")
    func folderForACassette() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try #require(throws: CassetteError.self) { try codec.load(folder) }
        #expect(error.description == "\(folder.path): cannot read: it is a folder, not a file", "\(error)")
    }

    @Test("the shipped example cassette loads with every kind of exchange")
    func exampleCassette() throws {
        let example = try codec.load(repositoryRoot.appendingPathComponent("cassettes/example.json"))
        let paths = example.interactions.map { $0.request.target.path }
        #expect(paths == ["/plaintext", "/postName", "/postBodyData", "/upload", "/image.png", "/gzip-json", "/users", "/events"])
        let png = example.interactions[4].response.body.data
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(example.interactions[5].response.contentCoding == .gzip)
        #expect(example.interactions[6].response.status == 404)
        #expect(example.interactions[7].chunks?.count == 3)
        #expect(example.interactions[2].request.headers["authorization"] == Redactor.placeholder)
    }
}

extension CassetteCodecTests {
    /// Expects a syntax error at the same file, line and column, whatever the message.
    func expectSyntaxError(_ expected: CassetteError, sourceLocation: SourceLocation = #_sourceLocation,
                           performing body: () throws -> Cassette) {
        do {
            _ = try body()
            Issue.record("expected \(expected)", sourceLocation: sourceLocation)
        } catch let error as CassetteError {
            guard case let .syntax(line, column, _) = error.kind, case let .syntax(wantLine, wantColumn, _) = expected.kind else {
                Issue.record("expected a syntax error, got \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(error.file == expected.file, sourceLocation: sourceLocation)
            #expect(line == wantLine && column == wantColumn, "got \(error)", sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix("\(expected.file!):\(wantLine):\(wantColumn): invalid JSON"), sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }
}

@Suite("Large cassettes")
struct LargeCassetteTests {
    func largeCassette(count: Int) -> Cassette {
        cassette((0..<count).map { number in
            interaction(request("GET", "https://api.example.test/items/\(number)?n=\(number)",
                                headers: ["Accept": "application/json"]),
                        body: #"{"id":\#(number),"text":"\#(String(repeating: "x", count: 200))"}"#,
                        timing: Timing(firstByteMs: 1, totalMs: 2))
        })
    }

    @Test("a cassette above the parallel threshold decodes to the same interactions, in order")
    func parallelDecodeMatchesSequential() throws {
        let original = largeCassette(count: 12_000)
        let bytes = try CassetteCodec().encode(original).bytes
        #expect(bytes.count > InteractionSlices.parallelThreshold)
        let makeDecoder: @Sendable () -> JSONDecoder = { JSONDecoder() }
        let sliced = InteractionSlices.decode(bytes, configure: makeDecoder)
        #expect(sliced == original)
        #expect(try CassetteCodec().decode(bytes) == original)
    }

    @Test("an error deep in a large cassette still names the exact place")
    func errorPlaceInLargeCassette() throws {
        let bytes = try CassetteCodec().encode(largeCassette(count: 12_000)).bytes
        var text = String(decoding: bytes, as: UTF8.self)
        let target = text.range(of: "\"status\" : 200", range: text.range(of: "items/11000?")!.upperBound ..< text.endIndex)!
        text.replaceSubrange(target, with: "\"status\" : \"200\"")
        let error = try #require(throws: CassetteError.self) { try CassetteCodec().decode(Data(text.utf8)) }
        guard case let .content(path, _) = error.kind else { Issue.record("\(error)"); return }
        #expect(path == "interactions[11000].response.status")
    }

    @Test("the index of a large cassette finds every interaction")
    func largeIndex() {
        let large = largeCassette(count: 20_000)
        let matcher = Matcher(interactions: large.interactions)
        for number in [0, 8191, 8192, 19_999] {
            #expect(matcher.matches(request("GET", "/items/\(number)?n=\(number)")) == [number])
        }
    }
}
