import Foundation
import Testing
@testable import TapedeckCore

@Suite("Content negotiation and bodyless answers")
struct ResponseEncodingTests {
    let plain = Data(String(repeating: "hello tapedeck ", count: 40).utf8)

    func response(_ coding: String?, status: Int = 200) -> CassetteResponse {
        var headers: HeaderList = ["Content-Type": "text/plain", "Content-Length": "12"]
        if let coding { headers.append(name: "Content-Encoding", value: coding) }
        return CassetteResponse(status: status, headers: headers, body: Body(plain))
    }

    func choice(_ coding: String?, _ accept: String?) -> ResponseEncoding {
        ResponseEncoding.negotiate(for: response(coding), acceptEncoding: accept)
    }

    @Test("a recorded gzip answer goes gzip only to a client that accepts it")
    func gzipOnlyWhenAccepted() {
        #expect(choice("gzip", nil) == .identity, "no Accept-Encoding (urllib, Java's HttpClient): decoded")
        #expect(choice("gzip", "") == .identity)
        #expect(choice("gzip", "gzip, deflate, br") == .encoded(.gzip))
        #expect(choice("gzip", "x-gzip") == .encoded(.gzip))
        #expect(choice("gzip", "GZIP;q=0.5") == .encoded(.gzip))
        #expect(choice("gzip", "*") == .encoded(.gzip))
        #expect(choice("gzip", "identity") == .identity)
        #expect(choice("gzip", "br") == .identity, "identity is acceptable unless refused")
        #expect(choice("gzip", "gzip;q=0") == .identity)
        #expect(choice("gzip", "deflate") == .encoded(.deflate), "another coding Tapedeck can produce")
        #expect(choice("deflate", "gzip;q=0.2, deflate;q=0.9") == .encoded(.deflate))
        #expect(choice("gzip", "gzip;q=0.3, identity;q=0.8") == .identity, "the highest weight wins")
        #expect(choice("gzip", "gzip;q=0.8, identity;q=0.8") == .encoded(.gzip), "ties go to the recorded coding")
        #expect(choice("gzip", "*;q=0") == .identity, "nothing acceptable: identity, the most readable")
        #expect(choice("gzip", "gzip;q=abc") == .identity, "an element with a bad q-value is left out")
    }

    @Test("answers recorded without a coding Tapedeck applies go as recorded")
    func asRecorded() {
        #expect(choice(nil, "gzip") == .asRecorded, "never compress what was not compressed")
        #expect(choice("br", nil) == .asRecorded)
        #expect(choice("identity", "gzip") == .asRecorded)
        #expect(choice("gzip, br", "gzip") == .asRecorded)
    }

    @Test("an interaction's answer: one rule for every door (negotiated coding, hop-by-hop dropped, chunks joined, HEAD keeps its length)")
    func interactionAnswer() throws {
        var recorded = response("gzip")
        recorded.headers.append(name: "Connection", value: "keep-alive")
        recorded.headers.append(name: "Transfer-Encoding", value: "chunked")
        let get = Interaction(request: CassetteRequest(method: "GET", url: "http://h/a"), response: recorded)
        let plainAnswer = get.plainAnswer
        #expect(plainAnswer.body == plain)
        #expect(plainAnswer.headers["Content-Encoding"] == nil)
        #expect(plainAnswer.headers["Content-Length"] == String(plain.count))
        #expect(plainAnswer.headers["Connection"] == nil && plainAnswer.headers["Transfer-Encoding"] == nil)
        let gzipped = try get.answer(acceptEncoding: "gzip")
        #expect(gzipped.headers["Content-Encoding"] == "gzip")
        #expect(try ContentCoding.gzip.decode(gzipped.body) == plain)

        var streamed = get
        streamed.response.body = .empty
        streamed.chunks = [StreamChunk(atMs: 0, data: plain.prefix(100)), StreamChunk(atMs: 5, data: plain.dropFirst(100))]
        #expect(streamed.plainAnswer.body == plain, "a streamed answer's chunks are joined")

        var head = get
        head.request.method = "HEAD"
        head.response.body = .empty
        let headAnswer = head.plainAnswer
        #expect(headAnswer.body.isEmpty)
        #expect(headAnswer.headers["Content-Length"] == "12", "a HEAD answer keeps the length it describes")
    }

    @Test("apply sets Content-Encoding and the length of what is sent")
    func apply() throws {
        let gzip = response("gzip")
        let (identityHeaders, identityBody) = try ResponseEncoding.identity.apply(to: gzip)
        #expect(identityBody == plain)
        #expect(identityHeaders["Content-Encoding"] == nil)
        #expect(identityHeaders["Content-Length"] == String(plain.count))
        let (gzipHeaders, gzipBody) = try ResponseEncoding.encoded(.gzip).apply(to: gzip)
        #expect(try ContentCoding.gzip.decode(gzipBody) == plain)
        #expect(gzipHeaders["Content-Encoding"] == "gzip")
        #expect(gzipHeaders["Content-Length"] == String(gzipBody.count))
        #expect(gzipBody.count < plain.count)
        let (deflateHeaders, deflateBody) = try ResponseEncoding.encoded(.deflate).apply(to: gzip)
        #expect(deflateHeaders.values(for: "Content-Encoding") == ["deflate"])
        #expect(try ContentCoding.deflate.decode(deflateBody) == plain)
        let notModified = CassetteResponse(status: 304, headers: ["Content-Length": "23866"], body: Body(plain))
        #expect(try ResponseEncoding.asRecorded.apply(to: notModified).headers["Content-Length"] == "23866",
                "a 304 keeps the length of the body it stands for")
    }

    @Test("1xx, 204 and 304 never carry a body, nor any answer to HEAD")
    func bodylessAnswers() {
        for status in [100, 101, 103, 199, 204, 304] { #expect(!ResponseBodyRule.statusAllowsBody(status), "\(status)") }
        for status in [200, 201, 206, 302, 400, 404, 500, 599] { #expect(ResponseBodyRule.statusAllowsBody(status), "\(status)") }
        #expect(ResponseBodyRule.sendsBody(status: 200, requestMethod: "GET"))
        #expect(!ResponseBodyRule.sendsBody(status: 200, requestMethod: "HEAD"))
        #expect(!ResponseBodyRule.sendsBody(status: 200, requestMethod: "head"))
        #expect(!ResponseBodyRule.sendsBody(status: 304, requestMethod: "GET"))
    }

    @Test("Accept-Encoding parses codings and weights")
    func acceptEncodingParsing() {
        let accepted = AcceptEncoding("gzip;q=0.5 , br, *;q=0.1, identity ; q=0")
        #expect(accepted.quality(of: "gzip") == 0.5)
        #expect(accepted.quality(of: "br") == 1)
        #expect(accepted.quality(of: "zstd") == 0.1)
        #expect(accepted.quality(of: "identity") == 0)
        #expect(AcceptEncoding("gzip").quality(of: "deflate") == nil)
        #expect((AcceptEncoding("gzip").quality(of: "identity") ?? 0) > 0)
    }
}
