import Foundation
import Testing
@testable import TapedeckCore

@Suite("Bodies that do not decode are stored as received")
struct StillEncodedBodyTests {
    /// Bytes that claim gzip (the magic number) but do not inflate.
    static let brokenGzip = Data([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0xff, 0xfe])

    static func gzipResponse(_ body: Body) -> CassetteResponse {
        CassetteResponse(status: 200, headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"], body: body)
    }

    @Test("a received gzip body is stored decoded; one that does not decode is kept exactly and marked")
    func storing() throws {
        let plain = Data(#"{"id":1}"#.utf8)
        let good = Body.storing(received: try ContentCoding.gzip.encode(plain), contentEncoding: "gzip")
        #expect(good.data == plain)
        #expect(!good.isEncoded)
        let broken = Body.storing(received: Self.brokenGzip, contentEncoding: "gzip")
        #expect(broken.data == Self.brokenGzip)
        #expect(broken.isEncoded)
        let deflate = Body.storing(received: Data("not deflate at all".utf8), contentEncoding: "deflate")
        #expect(deflate.isEncoded)
        let brotli = Body.storing(received: Self.brokenGzip, contentEncoding: "br")
        #expect(!brotli.isEncoded && brotli.data == Self.brokenGzip, "other codings are kept as they are, unmarked")
        #expect(!Body.storing(received: plain, contentEncoding: nil).isEncoded)
    }

    @Test("replay sends a still-encoded body exactly as received, never encoding it again")
    func replaySendsItAsReceived() throws {
        let response = Self.gzipResponse(.stillEncoded(Self.brokenGzip))
        #expect(response.contentCoding == nil)
        #expect(try response.wireBody() == Self.brokenGzip)
        #expect(ResponseEncoding.negotiate(for: response, acceptEncoding: nil) == .asRecorded)
        let (headers, body) = try ResponseEncoding.asRecorded.apply(to: response)
        #expect(body == Self.brokenGzip)
        #expect(headers["Content-Encoding"] == "gzip")
        let decoded = Self.gzipResponse(Body(Data("{}".utf8)))
        #expect(try ContentCoding.gzip.decode(try decoded.wireBody()) == Data("{}".utf8), "a decoded body is still encoded again")
    }

    @Test("the cassette says it: base64 (or text) with \"encoded\": true, read back the same, in both writers")
    func cassetteForm() throws {
        let interactions = [
            Interaction(request: request("GET", "/broken"), response: Self.gzipResponse(.stillEncoded(Self.brokenGzip))),
            Interaction(request: request("GET", "/text"), response: Self.gzipResponse(.stillEncoded(Data("plain, not gzip".utf8)))),
            Interaction(request: request("GET", "/fine"), response: Self.gzipResponse(Body(text: "{}"))),
        ]
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("still.json")
        try CassetteCodec().save(cassette(interactions), to: file)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let written = try #require(object["interactions"] as? [[String: Any]])
        let bodies = written.map { ($0["response"] as? [String: Any])?["body"] as? [String: Any] }
        #expect(bodies[0]?["encoded"] as? Bool == true)
        #expect(bodies[0]?["base64"] as? String == Self.brokenGzip.base64EncodedString())
        #expect(bodies[1]?["encoded"] as? Bool == true)
        #expect(bodies[1]?["text"] as? String == "plain, not gzip")
        #expect(bodies[2]?["encoded"] == nil)
        let loaded = try CassetteCodec().load(file)
        #expect(loaded.interactions.map(\.response.body) == interactions.map(\.response.body))

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        for interaction in interactions {
            #expect(InteractionWriter.encode(interaction, indent: 0, sideFiles: nil) == (try encoder.encode(interaction)))
        }
    }

    @Test("a large still-encoded body goes to a side file and keeps its mark")
    func sideFile() throws {
        var bytes = Self.brokenGzip
        bytes.append(Data(repeating: 0xff, count: 4096))
        let interaction = Interaction(request: request("GET", "/big"), response: Self.gzipResponse(.stillEncoded(bytes)))
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("big.json")
        try CassetteCodec(sideFileThreshold: 1024).save(cassette([interaction]), to: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"encoded\" : true") && text.contains("\"file\" : \"big.bodies/"))
        let loaded = try CassetteCodec(sideFileThreshold: 1024).load(file).interactions[0].response.body
        #expect(loaded.isEncoded && loaded.data == bytes)
    }

    @Test("\"encoded\" beside \"json\" is refused with the place")
    func encodedJSONRefused() throws {
        let text = """
        {"version": 1, "interactions": [{"request": {"method": "GET", "url": "/"},
          "response": {"status": 200, "body": {"json": {"a": 1}, "encoded": true}}}]}
        """
        #expect(throws: CassetteError.self) { try CassetteCodec().decode(Data(text.utf8)) }
        let lone = """
        {"version": 1, "interactions": [{"request": {"method": "GET", "url": "/"},
          "response": {"status": 200, "body": {"encoded": true}}}]}
        """
        #expect(throws: CassetteError.self) { try CassetteCodec().decode(Data(lone.utf8)) }
    }
}
