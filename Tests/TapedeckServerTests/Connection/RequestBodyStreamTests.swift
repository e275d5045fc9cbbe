import Foundation
import NIOCore
import NIOEmbedded
@testable import TapedeckServer
import TapedeckCore
import Testing

/// A gRPC call forwarded as it arrives has its secrets revealed message by message.
@Suite struct RequestBodyStreamTests {
    private func framed(_ texts: [String]) -> Data {
        GRPCMessage.frame(texts.map { GRPCMessage(bytes: Data($0.utf8), compressed: false) })
    }

    @Test func eachMessageIsRevealedOnceWholeThoughItsPlaceholderIsCutBetweenParts() throws {
        let loop = EmbeddedEventLoop()
        let received = RequestBodyStream(eventLoop: loop)
        let revealed = received.revealingMessages(try Secrets(["TEAM_TOKEN": "tok-live-123456"]), encoding: nil)
        var handedOn: [Data] = []
        var ended = false
        revealed.read(with: .init(part: { handedOn.append(Data($0.readableBytesView)) }, end: { ended = true }, failure: {}))

        let body = framed(["one <TEAM_TOKEN>", "two <TEAM_TOKEN>"])
        let cut = body.firstRange(of: Data("<TEAM".utf8))!.upperBound  // inside the first placeholder
        received.append(ByteBuffer(bytes: body[..<cut]))
        #expect(handedOn.isEmpty, "half a message is held")
        received.append(ByteBuffer(bytes: body[cut...]))
        received.finish()

        #expect(handedOn == [framed(["one tok-live-123456", "two tok-live-123456"])])
        #expect(ended)
        #expect(Data(revealed.received.readableBytesView) == framed(["one tok-live-123456", "two tok-live-123456"]))
    }

    @Test func aClientThatLeavesFailsTheRevealedBodyToo() throws {
        let received = RequestBodyStream(eventLoop: EmbeddedEventLoop())
        let revealed = received.revealingMessages(try Secrets(["TEAM_TOKEN": "tok-live-123456"]), encoding: nil)
        var failed = false
        revealed.read(with: .init(part: { _ in }, end: {}, failure: { failed = true }))
        received.append(ByteBuffer(bytes: framed(["x"]).prefix(3)))
        received.fail()
        #expect(failed)
    }
}
