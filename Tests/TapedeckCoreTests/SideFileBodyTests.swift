import Foundation
import Testing
@testable import TapedeckCore

/// Bodies kept in side files stay on disk: reading a cassette finds them without reading them,
/// saving names them without copying, and a spool turns a body received piece by piece into one.
@Suite("Side-file bodies on disk")
struct SideFileBodyTests {
    let codec = CassetteCodec(sideFileThreshold: 1024)
    let large = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    private func saveLarge(in folder: URL, name: String = "big") throws -> URL {
        let file = folder.appendingPathComponent("\(name).json")
        try codec.save(cassette([Interaction(request: request("GET", "/big"),
                                             response: CassetteResponse(status: 200, body: Body(large)))]), to: file)
        return file
    }

    @Test("a loaded side-file body refers to its file, with its size, and reads it only when asked")
    func loadedBodyRefersToFile() throws {
        let file = try saveLarge(in: try makeTemporaryDirectory())
        let body = try codec.load(file).interactions[0].response.body
        let sideFile = try #require(body.file)
        #expect(sideFile.size == large.count && body.count == large.count)
        #expect(sideFile.digest == SHA256.hash(large).hexadecimal)
        #expect(body.data == large)
        var pieces: [Int] = []
        try sideFile.read(pieceSize: 2048) { pieces.append($0.count) }
        #expect(pieces == [2048, 2048, 904])
    }

    @Test("two side files are equal by their names alone: neither is read to tell two different ones apart")
    func sideFilesCompareByName() {
        // Named by content, never read: the files do not exist, so reading would find both empty, and equal.
        func body(_ digit: Character) -> Body {
            Body(file: BodyFile(url: URL(fileURLWithPath: "/nowhere/\(String(repeating: digit, count: 64)).bin"), size: 100))
        }
        #expect(body("a") == body("a"))
        #expect(body("a") != body("b"), "different names, different bytes")
    }

    @Test("the first bytes of a side-file body come from the file alone, as in memory")
    func prefixOfSideFileBody() throws {
        let file = try saveLarge(in: try makeTemporaryDirectory())
        let body = try codec.load(file).interactions[0].response.body
        #expect(body.file != nil)
        #expect(body.prefix(100) == large.prefix(100))
        #expect(body.prefix(10_000) == large)
        #expect(Body(large).prefix(100) == large.prefix(100))
    }

    @Test("a missing side file is an error naming it")
    func missingSideFile() throws {
        let file = try saveLarge(in: try makeTemporaryDirectory())
        let sideFile = try #require(try codec.load(file).interactions[0].response.body.file)
        try FileManager.default.removeItem(at: sideFile.url)
        let error = try #require(throws: CassetteError.self) { try codec.load(file) }
        #expect(error.description.contains(sideFile.url.path))
        #expect(error.description.contains("does not exist"))
    }

    @Test("a side file that changed size after loading is refused when read")
    func changedSideFile() throws {
        let file = try saveLarge(in: try makeTemporaryDirectory())
        let sideFile = try #require(try codec.load(file).interactions[0].response.body.file)
        try Data("short".utf8).write(to: sideFile.url)
        let error = try #require(throws: SideFileError.self) { try sideFile.contents() }
        #expect(error.description.contains(sideFile.url.path) && error.description.contains("5000"))
    }

    @Test("saving a loaded cassette names its side files again; saving it elsewhere copies them")
    func savingKeepsOrCopiesSideFiles() throws {
        let folder = try makeTemporaryDirectory()
        let file = try saveLarge(in: folder)
        let loaded = try codec.load(file)
        try codec.save(loaded, to: file)
        #expect(try codec.load(file).interactions[0].response.body.data == large)

        let other = folder.appendingPathComponent("copy.json")
        try codec.save(loaded, to: other)
        let copied = try #require(try codec.load(other).interactions[0].response.body.file)
        #expect(copied.url.path.hasSuffix("copy.bodies/\(SHA256.hash(large).hexadecimal).bin"))
        #expect(try copied.contents() == large)
    }

    @Test("a spooled body becomes a side file named by its SHA-256, decoded when gzip")
    func spoolInstallsDecodedSideFile() throws {
        let folder = try makeTemporaryDirectory().appendingPathComponent("c.bodies")
        let gzip = try ContentCoding.gzip.encode(large)
        let spool = try SideFileSpool(folder: folder)
        for start in stride(from: 0, to: gzip.count, by: 700) { try spool.append(gzip[start..<min(start + 700, gzip.count)]) }
        let body = try spool.install(contentEncoding: "gzip")
        let sideFile = try #require(body.file)
        #expect(!body.isEncoded)
        #expect(sideFile.digest == SHA256.hash(large).hexadecimal)
        #expect(try sideFile.contents() == large)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["\(sideFile.digest).bin"])
    }

    @Test("a spooled JSON body is redacted before it is named, decoded first when gzip; nothing unredacted stays")
    func spoolRedactsJSON() throws {
        let json = Data(#"{"access_token": "tok-1", "items": [{"password": "pw-2", "id": 7}], "note": "kept"}"#.utf8)
        let expected = Data(#"{"access_token": "<redacted>", "items": [{"password": "<redacted>", "id": 7}], "note": "kept"}"#.utf8)
        for encoding in [nil, "gzip"] {
            let folder = try makeTemporaryDirectory().appendingPathComponent("c.bodies")
            let spool = try SideFileSpool(folder: folder, redacting: Redactor().streamingRedaction(contentType: "application/json"))
            let received = try encoding == nil ? json : ContentCoding.gzip.encode(json)
            for start in stride(from: 0, to: received.count, by: 9) { try spool.append(received[start..<min(start + 9, received.count)]) }
            let body = try spool.install(contentEncoding: encoding)
            let sideFile = try #require(body.file)
            #expect(try sideFile.contents() == expected)
            #expect(sideFile.digest == SHA256.hash(expected).hexadecimal)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["\(sideFile.digest).bin"])
        }
    }

    @Test("a spooled body has the secrets' values replaced, JSON or not, and is redacted as well when it is JSON")
    func spoolConcealsSecrets() throws {
        let secrets = try Secrets(["KEY": "sk-live-123456"])
        let json = Redactor().streamingRedaction(contentType: "application/json")
        let cases: [(body: String, redaction: JSONStreamRedactor?, expected: String)] = [
            ("plain sk-live-123456 text sk-live-123456", nil, "plain <KEY> text <KEY>"),
            (#"{"note": "sk-live-123456", "password": "pw"}"#, json, #"{"note": "<KEY>", "password": "<redacted>"}"#),
            ("labelled JSON, is not: sk-live-123456", json, "labelled JSON, is not: <KEY>"),
        ]
        for (body, redaction, expected) in cases {
            let folder = try makeTemporaryDirectory().appendingPathComponent("c.bodies")
            let spool = try SideFileSpool(folder: folder, concealing: secrets.concealingStream(), redacting: redaction)
            let data = Data(body.utf8)
            for start in stride(from: 0, to: data.count, by: 5) { try spool.append(data[start..<min(start + 5, data.count)]) }
            let installed = try #require(try spool.install(contentEncoding: nil).file)
            #expect(String(decoding: try installed.contents(), as: UTF8.self) == expected)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [installed.url.lastPathComponent])
        }
    }

    @Test("a spooled body to redact that is not JSON is kept as it came, as a body redacted whole is")
    func spoolKeepsWhatIsNotJSON() throws {
        let folder = try makeTemporaryDirectory().appendingPathComponent("c.bodies")
        let spool = try SideFileSpool(folder: folder, redacting: Redactor().streamingRedaction(contentType: "application/json"))
        try spool.append(large)
        let body = try spool.install(contentEncoding: nil)
        #expect(try #require(body.file).contents() == large)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
    }

    @Test("only JSON under JSON-path rules is redacted piece by piece")
    func streamingRedactionIsForJSON() {
        #expect(Redactor().streamingRedaction(contentType: "application/json; charset=utf-8") != nil)
        #expect(Redactor().streamingRedaction(contentType: "application/vnd.api+json") != nil)
        #expect(Redactor().streamingRedaction(contentType: "application/octet-stream") == nil)
        #expect(Redactor().streamingRedaction(contentType: nil) == nil)
        #expect(Redactor(rules: .none).streamingRedaction(contentType: "application/json") == nil)
    }

    @Test("a spooled body that does not decode is kept as received and marked encoded")
    func spoolKeepsUndecodableBody() throws {
        let folder = try makeTemporaryDirectory().appendingPathComponent("c.bodies")
        let spool = try SideFileSpool(folder: folder)
        try spool.append(large)
        let body = try spool.install(contentEncoding: "gzip")
        #expect(body.isEncoded)
        #expect(try #require(body.file).contents() == large)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
    }

    @Test("a spooled gzip body that decodes past the limit (a compression bomb) is kept as received and marked encoded")
    func spoolKeepsABombAsReceived() throws {
        let folder = try makeTemporaryDirectory().appendingPathComponent("c.bodies")
        let bomb = try ContentCoding.gzip.encode(Data(count: 8 << 20))
        let spool = try SideFileSpool(folder: folder, decodedLimit: 1 << 20)
        try spool.append(bomb)
        let body = try spool.install(contentEncoding: "gzip")
        #expect(body.isEncoded)
        #expect(try #require(body.file).contents() == bomb)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["\(try #require(body.file).digest).bin"])
    }

    @Test("a spool whose folder cannot be made names it and leaves nothing behind")
    func spoolThatCannotStartLeavesNothing() throws {
        let parent = try makeTemporaryDirectory()
        let folder = parent.appendingPathComponent("c.bodies")
        try Data("a file where the bodies folder should be".utf8).write(to: folder)
        #expect {
            _ = try SideFileSpool(folder: folder)
        } throws: { error in
            "\(error)".contains(folder.path) && !"\(error)".contains(".tmp")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["c.bodies"])
    }

    @Test("a discarded or dropped spool leaves nothing behind")
    func spoolDiscardLeavesNothing() throws {
        let folder = try makeTemporaryDirectory().appendingPathComponent("c.bodies")
        let spool = try SideFileSpool(folder: folder)
        try spool.append(large)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
        spool.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        do {
            let dropped = try SideFileSpool(folder: folder)
            try dropped.append(large)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("a recorder opening its cassette removes the spools a killed run left, and only those")
    func killedRunsSpoolsAreRemoved() throws {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("rec.json")
        let bodies = folder.appendingPathComponent("rec.bodies")
        do {
            // A spool that is never discarded: what a process killed mid-body leaves.
            let spool = try SideFileSpool(folder: bodies)
            try spool.append(large)
            let copy = bodies.appendingPathComponent(".spool-left-by-kill.tmp")
            try FileManager.default.copyItem(at: spool.temporary, to: copy)
        }
        let sideFile = bodies.appendingPathComponent("\(String(repeating: "a", count: 64)).bin")
        try Data("kept".utf8).write(to: sideFile)
        #expect(try FileManager.default.contentsOfDirectory(atPath: bodies.path).count == 2)
        _ = try Recorder(file: file, mode: .all, codec: codec, flushDelay: .milliseconds(10))
        #expect(try FileManager.default.contentsOfDirectory(atPath: bodies.path) == [sideFile.lastPathComponent])
    }

    @Test("a side-file body written into a cassette is its file, not its bytes; one that is not JSON is kept as it came")
    func recordedSideFileBody() throws {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("rec.json")
        let recorder = try Recorder(file: file, mode: .all, codec: codec, flushDelay: .milliseconds(10))
        let spool = try #require(try recorder.spoolForLargeBody(contentType: "application/json"))
        try spool.append(large)
        let body = try spool.install(contentEncoding: nil)
        var response = CassetteResponse(status: 200, body: body)
        response.headers.set(name: "Content-Type", value: "application/json")
        try recorder.record(Interaction(request: request("GET", "/big"), response: response))
        try recorder.finish()
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"file\" : \"rec.bodies/\(SHA256.hash(large).hexadecimal).bin\""))
        #expect(try codec.load(file).interactions[0].response.body.data == large)
    }
}
