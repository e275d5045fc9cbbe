import Foundation
@testable import TapedeckCore
import Testing

/// A gRPC body in a cassette is its list of messages (SPEC section 12); in memory it is the bytes on the wire.
@Suite struct GRPCBodyTests {
    static let cassette = #"""
    {"version": 1, "interactions": [{"recordedAt": "2026-11-21T10:00:00.000Z",
      "request": {"method": "POST", "url": "http://g.test/demo.Greeter/SayHello", "headers": {"content-type": ["application/grpc"]},
                  "body": {"grpc": [{"base64": "CgNBZGE=", "compressed": false}, {"base64": ""}]}},
      "response": {"status": 200, "headers": {}, "body": {"text": "x"}}}]}
    """#

    @Test func aGRPCContentTypeIsApplicationGRPCAloneOrWithAFormatOrParametersInAnyCase() {
        for type in ["application/grpc", "application/grpc+proto", "Application/GRPC+json", "application/grpc;charset=utf-8"] {
            #expect(GRPCCall.isGRPC(contentType: type), "\(type)")
        }
        for type in [nil, "", "application/grpc-web", "application/grpc-web+proto", "application/grpcx", "application/json", "text/grpc"] {
            #expect(!GRPCCall.isGRPC(contentType: type), "\(type ?? "nil")")
        }
    }

    @Test func messagesAreFramedOnReadAndListedOnWriteByBothWriters() throws {
        let codec = CassetteCodec()
        let cassette = try codec.decode(Data(Self.cassette.utf8))
        let body = cassette.interactions[0].request.body
        #expect(body.data == Data([0, 0, 0, 0, 5, 0x0A, 0x03, 0x41, 0x64, 0x61, 0, 0, 0, 0, 0]))
        #expect(body.style == .grpc)
        // The fast writer (what recording and saving use) and the Codable one agree.
        let written = String(decoding: try codec.encode(cassette).bytes, as: UTF8.self)
        #expect(written.contains(#""grpc" : ["#) || written.contains(#""grpc":["#), "\(written)")
        #expect(try codec.decode(try codec.encode(cassette).bytes) == cassette)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let viaCodable = String(decoding: try encoder.encode(cassette.interactions[0].request), as: UTF8.self)
        #expect(viaCodable.contains(#""grpc":[{"base64":"CgNBZGE=","compressed":false},{"base64":"","compressed":false}]"#), "\(viaCodable)")
    }

    @Test func framingThatDoesNotHoldIsWrittenAsPlainBytes() throws {
        var cassette = try CassetteCodec().decode(Data(Self.cassette.utf8))
        // A length prefix that lies (100 bytes announced, 1 there).
        cassette.interactions[0].request.body = Body(Data([0, 0, 0, 0, 100, 0x0A]), style: .grpc)
        let written = String(decoding: try CassetteCodec().encode(cassette).bytes, as: UTF8.self)
        #expect(!written.contains(#""grpc" :"#) && !written.contains(#""grpc":"#), "\(written)")
        #expect(try CassetteCodec().decode(Data(written.utf8)).interactions[0].request.body.data == Data([0, 0, 0, 0, 100, 0x0A]))
        #expect(GRPCMessage.split(Data([2, 0, 0, 0, 0])) == nil, "a flag other than 0 or 1")
    }

    /// The check a server makes of a client's body names the first message whose framing fails,
    /// on any bytes (a slice that does not start at zero too), and passes what `split` reads.
    @Test func framingProblemNamesTheMessageThatBreaksIt() {
        let twoMessages: [UInt8] = [0, 0, 0, 0, 1, 0x0A, 1, 0, 0, 0, 0]
        #expect(GRPCMessage.framingProblem(twoMessages) == nil)
        #expect(GRPCMessage.split(Data(twoMessages))?.count == 2)
        #expect(GRPCMessage.framingProblem(twoMessages + [0, 0]) == "message 3 has 2 bytes of its 5-byte prefix")
        #expect(GRPCMessage.framingProblem(twoMessages + [7, 0, 0, 0, 0]) == "message 3's compressed flag is 7, not 0 or 1")
        let lying = Data([9, 9] + twoMessages + [0, 0, 0, 0, 100, 0x0A])
        #expect(GRPCMessage.framingProblem(lying.dropFirst(2)) == "message 3's length prefix says 100 bytes; 1 follow")
        #expect(GRPCMessage.framingProblem([UInt8]()) == nil, "no message at all is a framing that holds")
    }

    @Test func compressedMessagesAreHeldDecompressedAndCompressedAgainForTheWire() throws {
        let plain = Data(String(repeating: "squeeze ", count: 40).utf8)
        let gzipped = try ContentCoding.gzip.encode(plain)
        let wire = GRPCMessage.frame([GRPCMessage(bytes: gzipped, compressed: true), GRPCMessage(bytes: Data("as is".utf8), compressed: false)])
        let held = GRPCCall.decompressed(wire, encoding: "gzip")
        #expect(GRPCMessage.split(held) == [GRPCMessage(bytes: plain, compressed: true), GRPCMessage(bytes: Data("as is".utf8), compressed: false)])
        #expect(GRPCCall.decompressed(wire, encoding: nil) == wire, "no grpc-encoding: nothing to decompress")
        let again = try #require(GRPCMessage.split(GRPCCall.compressed(held, encoding: "gzip")))
        #expect(try again.first.map { try ContentCoding.gzip.decode($0.bytes) } == plain && again.first?.compressed == true)
        #expect(GRPCMessage.split(GRPCCall.compressed(held, encoding: nil))?.first == GRPCMessage(bytes: plain, compressed: false),
                "for a client that does not take it, the message goes uncompressed")
        // Written as `"compressed": true` with the readable bytes, and read back so.
        let text = Self.cassette.replacingOccurrences(of: #"{"base64": "CgNBZGE=", "compressed": false}"#,
                                                      with: #"{"base64": "aGk=", "compressed": true}"#)
        let cassette = try CassetteCodec().decode(Data(text.utf8))
        #expect(GRPCMessage.split(cassette.interactions[0].request.body.data)?.first == GRPCMessage(bytes: Data("hi".utf8), compressed: true))
        #expect(GRPCCall.accepts("identity, deflate, gzip", "gzip") && !GRPCCall.accepts(nil, "gzip") && !GRPCCall.accepts("identity", "gzip"))
    }

    /// A request body the server already holds as messages (it decompresses them as they arrive,
    /// to match them) is recorded as held: a message whose content is itself gzip data (a file
    /// sent over gRPC) was decompressed a second time and stored inflated. A body as it came on the
    /// wire is decompressed once.
    @Test func aBodyHeldAsMessagesIsRecordedWithoutDecompressingItAgain() throws {
        let file = try ContentCoding.gzip.encode(Data(String(repeating: "a file's content ", count: 8).utf8))
        let held = GRPCMessage.frame([GRPCMessage(bytes: file, compressed: true)])
        let onTheWire = GRPCMessage.frame([GRPCMessage(bytes: try ContentCoding.gzip.encode(file), compressed: true)])
        let headers: HeaderList = ["content-type": "application/grpc", "grpc-encoding": "gzip"]
        for body in [Body(held, style: .grpc), Body(onTheWire)] {
            var call = Interaction(request: CassetteRequest(method: "POST", url: "http://g.test/demo.Files/Put", headers: headers, body: body),
                                   response: CassetteResponse(status: 200, headers: ["content-type": "application/grpc"]))
            GRPCCall.keepMessages(in: &call)
            let kept = call.request.body
            #expect(GRPCMessage.split(kept.data) == [GRPCMessage(bytes: file, compressed: true)], "\(body.style)")
            #expect(kept.style == .grpc)
        }
    }

    /// A streamed answer: messages with atMs, held as chunks of one message each and written back as read.
    static let streamed = #"""
    {"version": 1, "interactions": [{"recordedAt": "2026-11-21T10:00:00.000Z",
      "request": {"method": "POST", "url": "http://g.test/demo.Greeter/SayHellos", "headers": {"content-type": ["application/grpc"]}},
      "response": {"status": 200, "headers": {"content-type": ["application/grpc"]},
                   "body": {"grpc": [{"base64": "QQ==", "atMs": 0}, {"base64": "Qg==", "atMs": 20.5}, {"base64": "Qw=="}]},
                   "trailers": {"grpc-status": ["0"]}}}]}
    """#

    @Test func streamedMessagesArePacedByTheirAtMsAndWrittenBackSoByBothWriters() throws {
        let codec = CassetteCodec()
        let cassette = try codec.decode(Data(Self.streamed.utf8))
        let interaction = cassette.interactions[0]
        #expect(interaction.chunks?.map(\.atMs) == [0, 20.5, 20.5], "a message without atMs comes with the one before it")
        #expect(interaction.chunks?.map(\.data) == [Data([0, 0, 0, 0, 1, 0x41]), Data([0, 0, 0, 0, 1, 0x42]), Data([0, 0, 0, 0, 1, 0x43])])
        #expect(interaction.response.body.isEmpty)
        let written = String(decoding: try codec.encode(cassette).bytes, as: UTF8.self)
        #expect(!written.contains("chunks"), "\(written)")
        #expect(try codec.decode(Data(written.utf8)) == cassette)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let viaCodable = String(decoding: try encoder.encode(interaction), as: UTF8.self)
        #expect(viaCodable.contains(#"{"atMs":20.5,"base64":"Qg==","compressed":false}"#), "\(viaCodable)")
        #expect(!viaCodable.contains("chunks"), "\(viaCodable)")
    }

    @Test func aRecordedAnswerIsRegroupedAsItsMessagesTimedByTheirLastByte() throws {
        // Two messages read in three pieces: the first message ends in the second piece.
        let pieces = [StreamChunk(atMs: 0, data: Data([0, 0, 0, 0, 2, 0x41])), StreamChunk(atMs: 5, data: Data([0x41, 0, 0, 0, 0])),
                      StreamChunk(atMs: 9, data: Data([1, 0x42]))]
        let answer = try #require(GRPCCall.recordedAnswer(pieces))
        #expect(answer.chunks == [StreamChunk(atMs: 5, data: Data([0, 0, 0, 0, 2, 0x41, 0x41])), StreamChunk(atMs: 9, data: Data([0, 0, 0, 0, 1, 0x42]))])
        let single = try #require(GRPCCall.recordedAnswer([StreamChunk(atMs: 1, data: Data([0, 0, 0, 0, 1, 0x41]))]))
        #expect(single.chunks == nil && single.body == Data([0, 0, 0, 0, 1, 0x41]), "one message is a body: nothing to pace")
        #expect(GRPCCall.recordedAnswer([StreamChunk(atMs: 0, data: Data([0, 0, 0, 0, 9]))]) == nil, "a length prefix that lies")
    }

    @Test func grpcTimeoutIsReadInEveryUnitAndNonsenseIsNone() {
        #expect(GRPCCall.deadline(grpcTimeout: "300m") == .milliseconds(300))
        #expect(GRPCCall.deadline(grpcTimeout: "2H") == .seconds(7200))
        #expect(GRPCCall.deadline(grpcTimeout: "5S") == .seconds(5))
        #expect(GRPCCall.deadline(grpcTimeout: "7n") == .nanoseconds(7))
        for nonsense in [nil, "", "m", "300", "123456789m", "-1S", "5s", "1.5S"] {
            #expect(GRPCCall.deadline(grpcTimeout: nonsense) == nil, "\(nonsense ?? "nil")")
        }
    }

    @Test func aStubAnswersGRPCWithMessagesAndTrailersButNotWithABodyBeside() throws {
        let stub = try JSONDecoder().decode(StubResponse.self, from: Data(#"{"grpc": [{"base64": "aGk="}], "trailers": {"grpc-status": ["0"]}}"#.utf8))
        #expect(stub.status == 200)
        #expect(stub.headers["Content-Type"] == "application/grpc")
        #expect(stub.body.data == Data([0, 0, 0, 0, 2, 0x68, 0x69]) && stub.body.style == .grpc)
        #expect(stub.trailers?["grpc-status"] == "0")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(StubResponse.self, from: Data(#"{"grpc": [], "body": {"text": "a"}}"#.utf8))
        }
    }
}
