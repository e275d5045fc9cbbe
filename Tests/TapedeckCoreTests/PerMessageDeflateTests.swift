import Foundation
@testable import TapedeckCore
import Testing

/// `permessage-deflate` (RFC 7692): what each side agrees, and messages compressed by one side
/// read by the other.
@Suite struct PerMessageDeflateTests {
    @Test func aServerTakesTheFirstOfferItCanHonourAndSaysSo() throws {
        let plain = try #require(PerMessageDeflate.accepting(offers: ["permessage-deflate; client_max_window_bits"]))
        #expect(plain.agreement == PerMessageDeflate())
        #expect(plain.response == "permessage-deflate")

        let asked = try #require(PerMessageDeflate.accepting(offers: [
            "x-webkit-deflate-frame", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=\"11\"",
        ]))
        #expect(asked.agreement.serverNoContextTakeover && asked.agreement.clientNoContextTakeover)
        #expect(asked.agreement.serverMaxWindowBits == 10 && asked.agreement.clientMaxWindowBits == 11)
        #expect(asked.response == "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=11")

        // An offer with a parameter it does not know, twice the same one or a bad window is passed over.
        let second = try #require(PerMessageDeflate.accepting(offers: [
            "permessage-deflate; unknown_thing, permessage-deflate; server_max_window_bits=16, Permessage-Deflate; server_no_context_takeover; server_no_context_takeover",
            "permessage-deflate; server_max_window_bits=9",
        ]))
        #expect(second.response == "permessage-deflate; server_max_window_bits=9")
        #expect(PerMessageDeflate.accepting(offers: []) == nil)
        #expect(PerMessageDeflate.accepting(offers: ["permessage-deflate; server_max_window_bits"]) == nil, "the window needs a value")
    }

    @Test func aClientReadsWhatTheServerAgreedAndRefusesWhatItDidNotOffer() throws {
        #expect(try PerMessageDeflate.agreed(response: []) == nil)
        let agreed = try #require(try PerMessageDeflate.agreed(response: ["permessage-deflate; server_max_window_bits=12; client_max_window_bits=12"]))
        #expect(agreed.serverMaxWindowBits == 12 && agreed.clientMaxWindowBits == 12 && !agreed.serverNoContextTakeover)
        #expect(throws: WebSocketExtensionError.self) { try PerMessageDeflate.agreed(response: ["x-other"]) }
        #expect(throws: WebSocketExtensionError.self) { try PerMessageDeflate.agreed(response: ["permessage-deflate; mystery=1"]) }
        #expect(throws: WebSocketExtensionError.self) { try PerMessageDeflate.agreed(response: ["permessage-deflate, permessage-deflate"]) }
    }

    @Test(arguments: [false, true])
    func messagesGoBothWaysAndTheContextCarriesUnlessAgreedNot(noContextTakeover: Bool) throws {
        var agreement = PerMessageDeflate()
        agreement.serverNoContextTakeover = noContextTakeover
        agreement.clientNoContextTakeover = noContextTakeover
        agreement.serverMaxWindowBits = 10
        let server = PerMessageDeflateCodec(agreement, role: .server)
        let client = PerMessageDeflateCodec(agreement, role: .client)
        let message = Data(String(repeating: "the same words again and again ", count: 40).utf8)

        let first = try #require(server.compress(message))
        #expect(first.count < message.count / 5)
        #expect(try client.decompress(first, limit: 1 << 20) == message)
        let second = try #require(server.compress(message))
        #expect(try client.decompress(second, limit: 1 << 20) == message)
        // With the context kept, the second copy is a back-reference to the first: a few bytes.
        #expect(noContextTakeover ? second.count == first.count : second.count < first.count / 2, "\(first.count) then \(second.count)")

        let answer = try #require(client.compress(Data("ok".utf8)))
        #expect(try server.decompress(answer, limit: 10) == Data("ok".utf8))
        #expect(try server.decompress(try #require(client.compress(Data())), limit: 10) == Data(), "an empty message")
    }

    @Test func aSideHeldToAWindowOf8BitsSendsUncompressed() {
        var agreement = PerMessageDeflate()
        agreement.clientMaxWindowBits = 8
        #expect(PerMessageDeflateCodec(agreement, role: .client).compress(Data("hello".utf8)) == nil)
        #expect(PerMessageDeflateCodec(agreement, role: .server).compress(Data("hello".utf8)) != nil)
    }

    @Test func aBombOrGarbageIsRefused() throws {
        let sender = PerMessageDeflateCodec(PerMessageDeflate(), role: .client)
        let bomb = try #require(sender.compress(Data(count: 1 << 20)))
        #expect(bomb.count < 2000)
        #expect(throws: PerMessageDeflateCodec.DecompressionError.tooLarge(limit: 4096)) {
            try PerMessageDeflateCodec(PerMessageDeflate(), role: .server).decompress(bomb, limit: 4096)
        }
        #expect(throws: PerMessageDeflateCodec.DecompressionError.self) {
            try PerMessageDeflateCodec(PerMessageDeflate(), role: .server).decompress(Data([0xFF, 0xFF, 0xFF]), limit: 4096)
        }
    }
}
