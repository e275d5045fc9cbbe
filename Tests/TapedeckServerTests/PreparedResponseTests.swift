import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCore
import TapedeckNIO
@testable import TapedeckServer
import Testing

/// ``PreparedResponse``'s variants for clients that do not take the recorded coding come from the
/// core's one rule, ``Interaction/answer(acceptEncoding:)``.
@Suite struct PreparedResponseTests {
    private let text = Data(String(repeating: "data: tick\n\n", count: 20).utf8)

    @Test func aGzipStreamGoesDecodedAndWholeToAClientThatTakesNoGzip() throws {
        let interaction = Interaction(
            request: CassetteRequest(method: "GET", url: "http://h/events"),
            response: CassetteResponse(status: 200, headers: ["Content-Type": "text/event-stream", "Content-Encoding": "gzip"], body: .empty),
            chunks: [StreamChunk(atMs: 0, data: text.prefix(24)), StreamChunk(atMs: 10, data: text.dropFirst(24))])
        let prepared = try PreparedResponse(interaction)
        #expect(try ContentCoding.gzip.decode(Data(prepared.body.readableBytesView)) == text, "gzip to a client that takes it")

        let plain = prepared.negotiated(acceptEncoding: nil)
        #expect(Data(plain.body.readableBytesView) == text, "the chunks joined, not the empty stored body")
        #expect(plain.head.headers["Content-Encoding"].isEmpty)
        #expect(plain.head.headers["Content-Length"] == [String(text.count)])
    }

    @Test func eachVariantIsMadeOnceAndServedAgain() throws {
        let interaction = Interaction(
            request: CassetteRequest(method: "GET", url: "http://h/page"),
            response: CassetteResponse(status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip"], body: Body(text)))
        let prepared = try PreparedResponse(interaction)
        #expect(prepared.negotiated(acceptEncoding: "gzip") === prepared, "the recorded coding is the prepared response itself")
        let plain = prepared.negotiated(acceptEncoding: nil)
        #expect(prepared.negotiated(acceptEncoding: nil) === plain, "no second copy of the body for the next client")
        #expect(prepared.negotiated(acceptEncoding: "br") === plain, "identity again, for a client that takes nothing Tapedeck makes")
        #expect(Data(plain.body.readableBytesView) == text && plain.head.headers["Content-Encoding"].isEmpty)
        let deflated = prepared.negotiated(acceptEncoding: "deflate")
        #expect(prepared.negotiated(acceptEncoding: "deflate;q=1, identity;q=0.5") === deflated, "compressed once, not per request")
        #expect(deflated.head.headers["Content-Encoding"] == ["deflate"])
        #expect(try ContentCoding.deflate.decode(Data(deflated.body.readableBytesView)) == text)
    }

    @Test func aHeadAnswerKeepsTheLengthItDescribesInEveryVariant() throws {
        let interaction = Interaction(
            request: CassetteRequest(method: "HEAD", url: "http://h/file"),
            response: CassetteResponse(status: 200, headers: ["Content-Encoding": "gzip", "Content-Length": "4096"], body: .empty))
        let prepared = try PreparedResponse(interaction)
        #expect(prepared.head.headers["Content-Length"] == ["4096"])
        #expect(prepared.negotiated(acceptEncoding: "identity").head.headers["Content-Length"] == ["4096"])
    }

    @Test func theRecordedConnectionsOwnFieldsAreNotReplayed() throws {
        let interaction = Interaction(
            request: CassetteRequest(method: "GET", url: "http://h/page"),
            response: CassetteResponse(status: 200, headers: ["Connection": "X-Hop", "X-Hop": "1", "Keep-Alive": "timeout=5",
                                                              "Content-Type": "text/plain"], body: Body(text)))
        let names = try PreparedResponse(interaction).head.headers.map(\.name)
        #expect(names == ["Content-Type", "Content-Length"])
    }

    /// What may go on the wire (`HTTPHeaders.legal`, applied wherever headers from outside become
    /// an answer): the same headers when they are legal; otherwise no CR, LF or NUL in a value and
    /// no name that is not a token. A prepared response's trailers are made legal as its head is.
    @Test func headersFromOutsideAreMadeLegal() throws {
        let fine = HTTPHeaders([("Content-Type", "text/plain"), ("X-Empty", "")])
        #expect(fine.legal == fine)
        let hostile = HTTPHeaders([("X-A", "a\r\nSet-Cookie: evil=1"), ("Bad Name", "b"), ("X-B", "ok")])
        #expect(Array(hostile.legal.map { "\($0.name): \($0.value)" }) == ["X-A: a  Set-Cookie: evil=1", "X-B: ok"])
        #expect(HTTPResponseStatus(statusCode: 299, reasonPhrase: "Odd\r\nSet-Cookie: evil=1").legal.reasonPhrase == "Odd  Set-Cookie: evil=1")
        #expect(HTTPResponseStatus(statusCode: 1234).legal == .badGateway, "a code swift-http-types cannot hold, not a trap")

        let interaction = Interaction(
            request: CassetteRequest(method: "POST", url: "http://h/pkg.Svc/Call"),
            response: CassetteResponse(status: 200, headers: ["Content-Type": "application/grpc"], body: .empty,
                                       trailers: HeaderList([HeaderField(name: "grpc-status", value: "0"),
                                                             HeaderField(name: "grpc-message", value: "x\r\nEvil: 1")])))
        let trailers = try #require(try PreparedResponse(interaction).trailers)
        #expect(trailers["grpc-message"] == ["x  Evil: 1"] && trailers["Evil"].isEmpty)
    }
}
