import Foundation
import Testing
@testable import TapedeckCore

/// The replay rule of a recorded chat (a gRPC call whose client waited for answers): each answer
/// message waits for the request messages recorded before it.
@Suite struct GRPCConversationTests {
    /// "ping" at 1 ms, the head at 5 ms, "PING" 1 ms after it, "pong" at 20 ms, "PONG" 16 ms after the head.
    private func chat(requestTimes: [Double] = [1, 20], answerTimes: [Double] = [1, 16]) -> Interaction {
        var body = Body(GRPCMessage.frame([GRPCMessage(bytes: Data("ping".utf8), compressed: false),
                                           GRPCMessage(bytes: Data("pong".utf8), compressed: false)]), style: .grpc)
        body.messageTimes = requestTimes
        var interaction = Interaction(request: CassetteRequest(method: "POST", url: "http://chat.test/demo.Greeter/Chat",
                                                               headers: HeaderList([HeaderField(name: "content-type", value: "application/grpc")]),
                                                               body: body),
                                      response: CassetteResponse(status: 200, headers: HeaderList([HeaderField(name: "content-type", value: "application/grpc")])))
        interaction.timing = Timing(firstByteMs: 5, totalMs: 40)
        interaction.chunks = zip(["PING", "PONG"], answerTimes).map { StreamChunk(atMs: $1, data: GRPCMessage.frame([GRPCMessage(bytes: Data($0.utf8), compressed: false)])) }
        return interaction
    }

    @Test func eachAnswerWaitsForTheMessagesRecordedBeforeIt() throws {
        var conversation = try #require(GRPCConversation(chat()))
        #expect(conversation.start() == [])
        #expect(conversation.received(Data("ping".utf8)) == [.head, .message(0)])
        #expect(conversation.received(Data("pong".utf8)) == [.message(1)])
        #expect(conversation.clientEnded() == [.end])
        #expect(conversation.isOver)
    }

    @Test func aClientOffTheRecordingLeavesIt() throws {
        var differs = try #require(GRPCConversation(chat()))
        _ = differs.received(Data("ping".utf8))
        #expect(differs.received(Data("other".utf8)) == [.depart("message 2 differs from the recorded one")])
        #expect(differs.received(Data("pong".utf8)) == [], "nothing more is played")

        var early = try #require(GRPCConversation(chat()))
        _ = early.received(Data("ping".utf8))
        #expect(early.clientEnded() == [.depart("the client ended after 1 of the 2 recorded messages")])

        var more = try #require(GRPCConversation(chat()))
        _ = more.received(Data("ping".utf8))
        _ = more.received(Data("pong".utf8))
        #expect(more.received(Data("again".utf8)) == [.depart("message 3 is past the 2 recorded")])
        #expect(more.follows([Data("ping".utf8)]) && !more.follows([Data("pong".utf8)]))
    }

    /// A played chat is logged once, with what its client sent; a call handed over to whole
    /// matching is not the chat's to log.
    @Test func aPlayedChatIsLoggedOnceWithTheClientsMessages() throws {
        let recording = chat()
        let candidates = [RecordedChat(recording: recording, conversation: try #require(GRPCConversation(recording)))]
        let playback = Playback(interaction: recording, cassette: "chat.json", index: 0, position: 0, playCount: 1,
                                delay: ResponseDelay(head: .zero, total: .zero))
        var played = GRPCChat(candidates: candidates) { _, _ in playback }
        #expect(played.bodyToLog() == nil, "nothing to log before a chat is played")
        _ = played.received(Data("ping".utf8))
        _ = played.received(Data("other".utf8))
        #expect(played.bodyToLog().flatMap { GRPCMessage.split($0.data)?.map(\.bytes) } == [Data("ping".utf8), Data("other".utf8)],
                "the client's messages, not the recording's")
        #expect(played.bodyToLog() == nil, "once")

        var whole = GRPCChat(candidates: candidates) { _, _ in nil }
        _ = whole.received(Data("ping".utf8))
        guard case .whole = whole.clientEnded() else {
            Issue.record("a call no recording answers is matched whole")
            return
        }
        #expect(whole.bodyToLog() == nil, "a call matched whole is logged as it is played")
    }

    @Test func onlyACallAnsweredBeforeItsLastMessageIsAChat() {
        // Every message before the answer began: replayed whole, as any call.
        #expect(GRPCConversation(chat(requestTimes: [1, 2])) == nil)
        // No times: not recorded as it arrived.
        var untimed = chat()
        untimed.request.body.messageTimes = nil
        #expect(GRPCConversation(untimed) == nil)
    }
}
