import Foundation
import NIOCore
import NIOEmbedded
import NIOWebSocket
import TapedeckCore
import TapedeckNIO
@testable import TapedeckServer
import Testing

/// ``WebSocketMessageReader`` on an `EmbeddedChannel`: frames in, whole messages out, and each
/// way a peer can break RFC 6455 closing only its own connection with the code that names it.
@Suite struct WebSocketReaderTests {
    /// Collects the messages the reader passes on.
    private final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = WebSocketMessage.Content
        var messages: [WebSocketMessage.Content] = []
        var violations: [WebSocketMessageReader.Violation] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            messages.append(unwrapInboundIn(data))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if let violation = error as? WebSocketMessageReader.Violation { violations.append(violation) }
        }
    }

    private let collector = Collector()

    /// A channel reading a client (masked frames expected), with the real frame decoder in front when `decoding`.
    private func channel(maxMessageSize: Int = 64, decoding: Bool = false, deflate: PerMessageDeflateCodec? = nil) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        if decoding {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxMessageSize)))
        }
        try channel.pipeline.syncOperations.addHandler(WebSocketMessageReader(peerIsClient: true, maxMessageSize: maxMessageSize,
                                                                              deflate: deflate))
        try channel.pipeline.syncOperations.addHandler(collector)
        return channel
    }

    private func frame(_ opcode: WebSocketOpcode, _ bytes: [UInt8], fin: Bool = true, masked: Bool = true) -> WebSocketFrame {
        var data = ByteBuffer(bytes: bytes)
        let key: WebSocketMaskingKey? = masked ? WebSocketMaskingKey([1, 2, 3, 4]) : nil
        if let key { data.webSocketMask(key) }
        return WebSocketFrame(fin: fin, opcode: opcode, maskKey: key, data: data)
    }

    /// The close code the reader sent, and whether the channel closed.
    private func closeSent(_ channel: EmbeddedChannel) throws -> (code: UInt16?, closed: Bool) {
        channel.embeddedEventLoop.run()
        var code: UInt16?
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            guard frame.opcode == .connectionClose else { continue }
            var data = frame.data
            code = data.readInteger(as: UInt16.self)
        }
        return (code, !channel.isActive)
    }

    /// A 16 MiB message in 4,096 fragments of 4 KiB arrives whole, each fragment in its place, in
    /// time linear in its size (a copy of the message so far per fragment would take minutes here).
    @Test func aMessageInThousandsOfFragmentsIsJoinedWhole() throws {
        let size = 16 << 20, fragment = 4096
        let channel = try channel(maxMessageSize: size)
        let message = (0..<size).map { UInt8(truncatingIfNeeded: $0 / fragment &* 31 &+ $0) }
        for start in stride(from: 0, to: size, by: fragment) {
            let isFirst = start == 0, isLast = start + fragment == size
            try channel.writeInbound(frame(isFirst ? .binary : .continuation, Array(message[start..<start + fragment]), fin: isLast))
        }
        #expect(collector.messages == [.binary(Data(message))])
        #expect(collector.violations.isEmpty)
    }

    /// The unfinished messages of all connections share one total: a fragment past it closes its
    /// own socket with 1009, and what a message held is given back when it ends or its socket does.
    @Test func unfinishedMessagesShareOneTotal() throws {
        let budget = WebSocketBufferBudget(limit: 100)
        func reader() throws -> (EmbeddedChannel, Collector) {
            let collector = Collector(), channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(WebSocketMessageReader(peerIsClient: true, maxMessageSize: 80, budget: budget))
            try channel.pipeline.syncOperations.addHandler(collector)
            return (channel, collector)
        }
        let (first, firstMessages) = try reader(), (second, secondMessages) = try reader()
        try first.writeInbound(frame(.binary, Array(repeating: 1, count: 60), fin: false))
        #expect(budget.inUse == 60)
        try second.writeInbound(frame(.binary, Array(repeating: 2, count: 30), fin: false))
        try second.writeInbound(frame(.continuation, Array(repeating: 2, count: 30), fin: false))
        #expect(try closeSent(second) == (1009, true), "60 and 60 is past the total of 100")
        #expect(secondMessages.violations.map(\.code) == [1009])
        #expect(budget.inUse == 60, "the refused socket gave back what it held")

        // A whole message in one frame holds nothing; the first message's end gives back its part.
        try first.writeInbound(frame(.continuation, Array(repeating: 1, count: 10)))
        #expect(firstMessages.messages == [.binary(Data(repeating: 1, count: 70))])
        #expect(budget.inUse == 0)
        let (third, thirdMessages) = try reader()
        try third.writeInbound(frame(.binary, Array(repeating: 3, count: 80), fin: false))
        #expect(budget.inUse == 80)
        _ = try third.finish(acceptAlreadyClosed: true)
        #expect(budget.inUse == 0, "a socket that closes mid-message gives back what it held")
        #expect(thirdMessages.violations.isEmpty)
    }

    /// A conversation with no frame either way for the idle timeout is closed with 1001; a tunnel's
    /// watch of reads alone is passed on untouched.
    @Test func anIdleConversationIsClosedGoingAway() throws {
        let channel = try channel()
        channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(try closeSent(channel).code == nil, "reads alone are not this handler's to watch")
        channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.all)
        #expect(try closeSent(channel) == (1001, true))
    }

    @Test func underPermessageDeflateMessagesAreReadDecompressedAndWrittenCompressed() throws {
        let channel = try channel(maxMessageSize: 4096, deflate: PerMessageDeflateCodec(PerMessageDeflate(), role: .server))
        let client = PerMessageDeflateCodec(PerMessageDeflate(), role: .client)
        let text = String(repeating: "abc", count: 100)
        // A compressed message in two fragments: RSV1 on the first only.
        let compressed = [UInt8](try #require(client.compress(Data(text.utf8))))
        var first = frame(.text, Array(compressed.prefix(5)), fin: false)
        first.rsv1 = true
        try channel.writeInbound(first)
        try channel.writeInbound(frame(.continuation, Array(compressed.dropFirst(5))))
        // An uncompressed one is still taken.
        try channel.writeInbound(frame(.binary, [1, 2, 3]))
        #expect(collector.messages == [.text(text), .binary(Data([1, 2, 3]))])

        try channel.writeOutbound(WebSocketMessage.Content.text(text))
        let sent = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(sent.rsv1 && sent.opcode == .text && sent.maskKey == nil)
        #expect(sent.data.readableBytes < 50)
        #expect(try client.decompress(Data(sent.data.readableBytesView), limit: 4096) == Data(text.utf8))
        try channel.writeOutbound(WebSocketMessage.Content.close(code: 1000, reason: ""))
        #expect(try channel.readOutbound(as: WebSocketFrame.self)?.rsv1 == false, "control frames are never compressed")
    }

    @Test func oneCloseFrameIsWrittenAndALaterCloseIsDroppedAsDone() throws {
        let channel = try channel()
        try channel.writeOutbound(WebSocketMessage.Content.text("bye"))
        try channel.writeOutbound(WebSocketMessage.Content.close(code: 1000, reason: "done"))
        let second = channel.writeAndFlush(WebSocketMessage.Content.close(code: 1001, reason: "again"))
        channel.embeddedEventLoop.run()
        #expect(throws: Never.self) { try second.wait() }
        // The peer breaking the protocol afterwards closes the connection without another close frame.
        try channel.writeInbound(frame(.text, [0x66], masked: false))
        var opcodes: [WebSocketOpcode] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { opcodes.append(frame.opcode) }
        #expect(opcodes == [.text, .connectionClose])
        #expect(!channel.isActive)
    }

    @Test func whenTheServerStopsThePeerIsToldGoingAwayAndTheConnectionCloses() throws {
        let channel = try channel()
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(try closeSent(channel) == (1001, true))
    }

    @Test func fragmentsAreJoinedAndPingsAnsweredNotPassedOn() throws {
        let channel = try channel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(frame(.text, Array("hel".utf8), fin: false))
        try channel.writeInbound(frame(.ping, [7]))
        try channel.writeInbound(frame(.continuation, Array("lo".utf8)))
        try channel.writeInbound(frame(.binary, [1, 2]))
        try channel.writeInbound(frame(.connectionClose, [0x03, 0xE8] + Array("bye".utf8)))
        #expect(collector.messages == [.text("hello"), .binary(Data([1, 2])), .close(code: 1000, reason: "bye")])
        let pong = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(pong.opcode == .pong && pong.data == ByteBuffer(bytes: [7]) && pong.maskKey == nil)
    }

    @Test(arguments: [
        ("an unmasked client frame", 1002),
        ("a reserved opcode", 1002),
        ("reserved bits", 1002),
        ("invalid UTF-8 in a text message", 1007),
        ("a message over the limit in fragments", 1009),
        ("a continuation with nothing to continue", 1002),
        ("a close reason that is not UTF-8", 1007),
        ("close code 1005, which only reports a close without a frame", 1002),
        ("close code 999, below every defined one", 1002),
    ])
    func aPeerBreakingTheProtocolIsClosedWithTheCodeThatNamesIt(_ case: String, _ code: Int) throws {
        let channel = try channel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let bad: [WebSocketFrame] = switch `case` {
        case "an unmasked client frame": [frame(.text, Array("hi".utf8), masked: false)]
        case "a reserved opcode": [frame(WebSocketOpcode(encodedWebSocketOpcode: 0x3)!, [1])]
        case "reserved bits": [WebSocketFrame(fin: true, rsv1: true, opcode: .text, maskKey: WebSocketMaskingKey([0, 0, 0, 0]),
                                              data: ByteBuffer(string: "x"))]
        case "invalid UTF-8 in a text message": [frame(.text, [0xC3, 0x28])]
        case "a message over the limit in fragments": [frame(.binary, Array(repeating: 1, count: 40), fin: false),
                                                       frame(.continuation, Array(repeating: 1, count: 40))]
        case "a continuation with nothing to continue": [frame(.continuation, [1])]
        case "close code 1005, which only reports a close without a frame": [frame(.connectionClose, [0x03, 0xED])]
        case "close code 999, below every defined one": [frame(.connectionClose, [0x03, 0xE7, 0x61])]
        default: [frame(.connectionClose, [0x03, 0xE8, 0xFF])]
        }
        for frame in bad { try channel.writeInbound(frame) }
        try channel.writeInbound(frame(.text, Array("after".utf8)))
        let (sent, closed) = try closeSent(channel)
        #expect(sent == UInt16(code), "\(`case`)")
        #expect(closed, "the offending connection closes")
        #expect(collector.violations.map(\.code) == [UInt16(code)])
        #expect(!collector.messages.contains(.text("after")), "nothing more is read from it")
    }

    @Test func aControlFrameOver125BytesAndAFrameOverTheLimitAreRefusedByTheDecoder() throws {
        for (length, code) in [(126, UInt16(1002)), (200, 1009)] {
            let channel = try channel(maxMessageSize: 150, decoding: true)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            let opcode: UInt8 = length == 126 ? 0x89 : 0x82  // a ping, or a binary frame
            var bytes = ByteBuffer(bytes: [opcode, 0x80 | 126])
            bytes.writeInteger(UInt16(length))
            bytes.writeBytes([0, 0, 0, 0] + Array(repeating: 0, count: length))
            _ = try? channel.writeInbound(bytes)
            let (sent, closed) = try closeSent(channel)
            #expect(sent == code && closed, "a frame of \(length) bytes")
        }
    }
}
