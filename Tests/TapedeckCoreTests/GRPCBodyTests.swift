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

    @Test func compressedMessagesAndPacingAreRefusedWithTheReason() throws {
        for (entry, reason) in [(#"{"base64": "AA==", "compressed": true}"#, "compressed gRPC messages are not supported yet"),
                                (#"{"base64": "AA==", "atMs": 5}"#, "atMs in a gRPC body is not supported yet")] {
            let text = Self.cassette.replacingOccurrences(of: #"{"base64": "CgNBZGE=", "compressed": false}"#, with: entry)
            #expect(performing: { try CassetteCodec().decode(Data(text.utf8)) }, throws: { error in
                "\(error)".contains(reason)
            })
        }
    }
}
