import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import TapedeckServer
import TapedeckCore
import Testing

/// A recorded chat replayed as the call's messages come (``GRPCCallReplay``), on a stream's
/// translated parts through `EmbeddedChannel`: its trials run on the event loop.
@Suite struct GRPCCallReplayTests {
    private static let grpc = [("host", "chat.test"), ("content-type", "application/grpc")]

    /// "ping" then "pong", the answer's head and "PING" after the first, "PONG" after the second.
    private func recordedChat() -> Interaction {
        var body = Body(GRPCMessage.frame([message("ping"), message("pong")]), style: .grpc)
        body.messageTimes = [1, 20]
        var interaction = Interaction(
            request: CassetteRequest(method: "POST", url: "http://chat.test/demo.Greeter/Chat",
                                     headers: HeaderList([HeaderField(name: "content-type", value: "application/grpc")]), body: body),
            response: CassetteResponse(status: 200, headers: HeaderList([HeaderField(name: "content-type", value: "application/grpc")])))
        interaction.timing = Timing(firstByteMs: 5, totalMs: 40)
        interaction.chunks = [StreamChunk(atMs: 1, data: GRPCMessage.frame([message("PING")])),
                              StreamChunk(atMs: 16, data: GRPCMessage.frame([message("PONG")]))]
        return interaction
    }

    private func message(_ text: String) -> GRPCMessage {
        GRPCMessage(bytes: Data(text.utf8), compressed: false)
    }

    /// A stream's exchange handler in front of a replay server holding the chat and `stubs`.
    private func stream(stubs: [Stub], home: URL) throws -> (EmbeddedChannel, ReplayDeck) {
        let (channel, mode) = try streamAndMode(stubs: stubs, home: home)
        return (channel, mode.deck)
    }

    /// The same, with the replay server's mode (its journal and inspector).
    private func streamAndMode(stubs: [Stub], home: URL) throws -> (EmbeddedChannel, ReplayMode) {
        let configuration = ServerConfiguration(port: 0, maxBodySize: 1024, idleTimeout: .seconds(60), authorityHome: home)
        let deck = try ReplayDeck(cassettes: [("chat.json", Cassette(interactions: [recordedChat()]))], options: PlaybackOptions(), stubs: stubs)
        let mode = ReplayMode(deck: deck, library: nil, configuration: configuration, authority: CertificateAuthority(home: home))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ExchangeHandler(front: FrontDoor(mode: mode), configuration: configuration, tunnelOrigin: nil))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, mode)
    }

    /// Opens a call (as SwiftNIO's HTTP/2 codec hands a stream on) and sends its first message.
    private func call(_ uri: String, on channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPServerRequestPart.head(
            HTTPRequestHead(version: HTTPVersion(major: 2, minor: 0), method: .POST, uri: uri, headers: HTTPHeaders(Self.grpc))))
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(bytes: GRPCMessage.frame([message("ping")]))))
    }

    /// A call is tried against the recorded chats as its messages come, on the event loop; a
    /// trial tries the recordings only, and one that no recording answers leaves no trace: no stub
    /// consulted (a regular expression could take its whole budget there), nothing logged. The
    /// call is matched whole once it ends, as any request: then a stub may answer it.
    @Test func aChatTrialTriesTheRecordingsOnly() throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let regexStub = Stub(request: RequestPattern(pathRegex: try StubRegex("^/orders/(a+)+$")), response: StubResponse(status: 200))
        let (playing, deck) = try stream(stubs: [regexStub], home: home)
        try call("/demo.Greeter/Chat", on: playing)
        guard case .head(let head) = try playing.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("a call that follows the recording is played as it speaks")
            return
        }
        #expect(head.status == .ok)
        try playing.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(deck.player.stubs.verify(RequestPattern()).count == 1, "the played call is logged once, when it ended")

        // Its query matches no recording; its messages follow the chat, so the chat is tried.
        let (declined, other) = try stream(stubs: [regexStub], home: home)
        try call("/demo.Greeter/Chat?variant=2", on: declined)
        #expect(try declined.readOutbound(as: HTTPServerResponsePart.self) == nil, "nothing played")
        #expect(other.player.stubs.verify(RequestPattern()).isEmpty,
                "the trial stopped before the stubs: their regular expression did not run on the event loop")

        let pathStub = Stub(request: RequestPattern(path: "/demo.Greeter/Chat"), response: StubResponse(status: 200))
        let (stubbed, withStub) = try stream(stubs: [pathStub], home: home)
        try call("/demo.Greeter/Chat?variant=2", on: stubbed)
        #expect(try stubbed.readOutbound(as: HTTPServerResponsePart.self) == nil, "the stub waits for the whole call")
        #expect(withStub.player.stubs.verify(RequestPattern()).isEmpty)
        try stubbed.writeInbound(HTTPServerRequestPart.end(nil))
        guard case .head = try stubbed.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("the whole call is answered by the stub")
            return
        }
        #expect(withStub.player.stubs.verify(RequestPattern()).count == 1, "and logged once")
        for channel in [playing, declined, stubbed] { _ = try? channel.finish() }
    }

    /// A played chat goes into the `verify` log with what its client sent, not with the recording it
    /// was tried by: logged when the client ends the call, or resets it, with every message.
    @Test func aPlayedChatIsLoggedWithTheMessagesItsClientSent() throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let (departing, deck) = try stream(stubs: [], home: home)
        try call("/demo.Greeter/Chat", on: departing)
        try departing.writeInbound(HTTPServerRequestPart.body(ByteBuffer(bytes: GRPCMessage.frame([message("other")]))))
        #expect(deck.player.stubs.verify(RequestPattern()).isEmpty, "logged once the call's messages are all in")
        try departing.writeInbound(HTTPServerRequestPart.end(nil))
        let logged = deck.player.stubs.verify(RequestPattern())
        #expect(logged.map { GRPCMessage.split($0.body.data)?.map { String(decoding: $0.bytes, as: UTF8.self) } } == [["ping", "other"]],
                "the client's two messages, not the recording's ping and pong")
        #expect(logged.first?.target.path == "/demo.Greeter/Chat")

        let (reset, resetDeck) = try stream(stubs: [], home: home)
        try call("/demo.Greeter/Chat", on: reset)
        reset.pipeline.fireChannelInactive()
        #expect(resetDeck.player.stubs.verify(RequestPattern()).map { GRPCMessage.split($0.body.data)?.count } == [1],
                "a call the client reset is logged with the message it sent")
        for channel in [departing, reset] { _ = try? channel.finish() }
    }

    /// The inspector keeps a played chat when it is chosen, with the messages sent by then, and
    /// shows every message its client sent once the call ended or was reset; the journal notes it once.
    @Test func theInspectorShowsEveryMessageOfAPlayedChat() throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        func shownMessages(_ mode: ReplayMode) throws -> [String]? {
            let store = try #require(mode.answers.exchanges)
            let id = try #require(store.summaries().exchanges.first?.id)
            let body = try #require(store.exchange(id: id)?.request.body)
            return GRPCMessage.split(Data(base64Encoded: body.base64 ?? "") ?? Data())?.map { String(decoding: $0.bytes, as: UTF8.self) }
        }
        let (ended, endedMode) = try streamAndMode(stubs: [], home: home)
        try call("/demo.Greeter/Chat", on: ended)
        #expect(try shownMessages(endedMode) == ["ping"], "kept when chosen, with the first message")
        try ended.writeInbound(HTTPServerRequestPart.body(ByteBuffer(bytes: GRPCMessage.frame([message("other")]))))
        try ended.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try shownMessages(endedMode) == ["ping", "other"], "every message the client sent, once it ended")
        #expect(endedMode.journal.document().entries.count == 1, "the journal notes the call once")

        let (reset, resetMode) = try streamAndMode(stubs: [], home: home)
        try call("/demo.Greeter/Chat", on: reset)
        try reset.writeInbound(HTTPServerRequestPart.body(ByteBuffer(bytes: GRPCMessage.frame([message("pong")]))))
        reset.pipeline.fireChannelInactive()
        #expect(try shownMessages(resetMode) == ["ping", "pong"], "and of a call the client reset")
        for channel in [ended, reset] { _ = try? channel.finish() }
    }

    /// An inspector page listening hears of a played chat twice: when it is chosen (`exchange`)
    /// and when its client ended it and the exchange got every message (`update`, with the same id).
    @Test func anOpenInspectorPageHearsWhenAPlayedChatEnds() throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let (chat, mode) = try streamAndMode(stubs: [], home: home)
        let page = EmbeddedChannel()
        try page.pipeline.syncOperations.addHandler(ExchangeHandler(front: FrontDoor(mode: mode),
                                                                    configuration: ServerConfiguration(port: 0, authorityHome: home), tunnelOrigin: nil))
        try page.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try page.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/__tapedeck/events",
                                                                         headers: ["Host": "127.0.0.1"])))
        try page.writeInbound(HTTPServerRequestPart.end(nil))
        func heard() throws -> String {
            page.embeddedEventLoop.run()
            var text = ""
            while let part = try page.readOutbound(as: HTTPServerResponsePart.self) {
                if case .body(.byteBuffer(let buffer)) = part { text += String(buffer: buffer) }
            }
            return text
        }
        #expect(try heard().contains(": listening"))

        try call("/demo.Greeter/Chat", on: chat)
        let chosen = try heard()
        #expect(chosen.hasPrefix("event: exchange\n"), "\(chosen)")
        let id = try #require(mode.answers.exchanges?.summaries().exchanges.first?.id)
        try chat.writeInbound(HTTPServerRequestPart.body(ByteBuffer(bytes: GRPCMessage.frame([message("other")]))))
        #expect(try heard().isEmpty, "nothing changed while the call goes on")
        try chat.writeInbound(HTTPServerRequestPart.end(nil))
        let ended = try heard()
        #expect(ended.hasPrefix("event: update\n"), "\(ended)")
        #expect(ended.contains(#""id":\#(id),"#), "\(ended)")
        for channel in [chat, page] { _ = try? channel.finish() }
    }
}
