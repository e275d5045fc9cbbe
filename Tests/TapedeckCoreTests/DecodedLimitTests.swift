import Foundation
@testable import TapedeckCore
import Testing

/// Nothing decodes past ``ContentCoding/decodedLimit``: a compression bomb from a client, an
/// upstream or a cassette is kept as it came, as bytes that are not valid gzip are.
@Suite struct DecodedLimitTests {
    /// 2 MiB of zeros, in about 2 KB of each coding.
    static let zeros = Data(count: 2 << 20)

    @Test(arguments: ContentCoding.allCases)
    func bytesThatDecodePastTheLimitDoNotDecode(coding: ContentCoding) throws {
        let squeezed = try coding.encode(Self.zeros)
        #expect(squeezed.count < 10_000)
        #expect(try coding.decode(squeezed, limit: Self.zeros.count) == Self.zeros, "at the limit it decodes")
        do {
            _ = try coding.decode(squeezed, limit: 1 << 20)
            Issue.record("decoded past the limit")
        } catch {
            #expect(error.isPastLimit, "\(error)")
            #expect(error.description == "cannot decode \(coding.rawValue) body: it decodes past 1048576 bytes")
        }
    }

    /// The rules built on decoding keep a bomb as it came: a body stored from a response, and a gRPC message.
    @Test func aBodyOrAGRPCMessagePastTheLimitIsKeptAsItCame() throws {
        let bomb = try ContentCoding.gzip.encode(Data(count: ContentCoding.decodedLimit + 1))
        let stored = Body.storing(received: bomb, contentEncoding: "gzip")
        #expect(stored.isEncoded && stored.data == bomb)
        let message = GRPCMessage.frame([GRPCMessage(bytes: bomb, compressed: true)])
        #expect(GRPCCall.decompressed(message, encoding: "gzip") == message)
    }
}
