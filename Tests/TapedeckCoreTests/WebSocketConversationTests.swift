import Foundation
import Testing
@testable import TapedeckCore

/// The replay rule of WebSocket conversations (SPEC section 13), their cassette form, and
/// redaction of their messages.
@Suite struct WebSocketConversationTests {
    private static let chat: [WebSocketMessage] = [
        WebSocketMessage(from: .server, atMs: 5, content: .text("welcome")),
        WebSocketMessage(from: .client, atMs: 10, content: .text(#"{"op":"join","room":"a"}"#)),
        WebSocketMessage(from: .server, atMs: 30, content: .text("joined a")),
        WebSocketMessage(from: .server, atMs: 100, content: .binary(Data([0, 1, 2]))),
        WebSocketMessage(from: .client, atMs: 400, content: .close(code: 1000, reason: "bye")),
        WebSocketMessage(from: .server, atMs: 401, content: .close(code: 1000, reason: "bye")),
    ]

    @Test func serverMessagesWaitForTheClientMessageBeforeThemAndGoInOrder() {
        var conversation = WebSocketConversation(Self.chat)
        #expect(conversation.start() == [.send(.text("welcome"), after: .zero)])
        // JSON by value: members in another order match.
        #expect(conversation.received(.text(#"{ "room": "a", "op": "join" }"#)) == [
            .send(.text("joined a"), after: .zero), .send(.binary(Data([0, 1, 2])), after: .zero),
        ])
        #expect(conversation.received(.close(code: 1000, reason: "bye")) == [.close(code: 1000, reason: "bye", after: .zero)])
        #expect(conversation.isOver && conversation.clientHasClosed && conversation.departure == nil)
        #expect(conversation.received(.text("late")) == [], "nothing is played after the close")
    }

    @Test func aClientMessageOffTheRecordingClosesWith1008NamingTheRecordedMessage() {
        var conversation = WebSocketConversation(Self.chat)
        _ = conversation.start()
        let actions = conversation.received(.text(#"{"op":"leave"}"#))
        #expect(actions == [.close(code: 1008, reason: #"expected client text "{"op":"join","room":"a"}"; got client text "{"op":"leave"}""#, after: .zero)])
        #expect(conversation.departure?.index == 1)
        #expect(conversation.departure?.received == .text(#"{"op":"leave"}"#))
        #expect(conversation.isOver)
    }

    /// Long messages are cut so that the recorded one and the one sent both fit a close reason.
    @Test func theReasonForLongMessagesHoldsBothWithin123Bytes() throws {
        let recorded = String(repeating: "é", count: 80)
        var conversation = WebSocketConversation([WebSocketMessage(from: .client, atMs: 0, content: .text(recorded))])
        _ = conversation.start()
        let actions = conversation.received(.text(String(repeating: "x", count: 500)))
        guard case .close(1008, let reason, _) = try #require(actions.first) else {
            Issue.record("\(actions)")
            return
        }
        #expect(reason.utf8.count <= 123, "\(reason.utf8.count) bytes")
        #expect(reason.hasPrefix("expected client text \"ééé") && reason.contains("; got client text \"xxx"), "\(reason)")
    }

    @Test func aMessageAfterTheRecordingEndedClosesWith1008() {
        var conversation = WebSocketConversation([WebSocketMessage(from: .server, atMs: 0, content: .text("only"))])
        _ = conversation.start()
        #expect(conversation.received(.binary(Data([9]))) == [.close(code: 1008, reason: "no more client messages recorded; got client binary 1 bytes", after: .zero)])
        #expect(conversation.departure?.expected == nil && conversation.departure?.index == 1)
    }

    @Test func aClientClosingEarlyIsAnsweredAndNoted() {
        var conversation = WebSocketConversation(Self.chat)
        _ = conversation.start()
        #expect(conversation.received(.close(code: 1001, reason: "")) == [.close(code: 1001, reason: "", after: .zero)])
        #expect(conversation.departure?.index == 1)
    }

    @Test func serverMessagesArePacedByTheirRecordedGapsUnderTheLatencyOption() {
        var recorded = WebSocketConversation(Self.chat, latency: .recorded)
        #expect(recorded.start() == [.send(.text("welcome"), after: .milliseconds(5))])
        #expect(recorded.received(.text(#"{"op":"join","room":"a"}"#)) == [
            .send(.text("joined a"), after: .milliseconds(20)), .send(.binary(Data([0, 1, 2])), after: .milliseconds(70)),
        ])
        var scaled = WebSocketConversation(Self.chat, latency: .scale(2))
        #expect(scaled.start() == [.send(.text("welcome"), after: .milliseconds(10))])
        var fixed = WebSocketConversation(Self.chat, latency: .fixed(milliseconds: 7))
        #expect(fixed.start() == [.send(.text("welcome"), after: .milliseconds(7))])
    }

    @Test func aRecordedServerCloseEndsTheConversation() {
        var conversation = WebSocketConversation([
            WebSocketMessage(from: .server, atMs: 0, content: .text("bye")),
            WebSocketMessage(from: .server, atMs: 1, content: .close(code: 4000, reason: "done")),
            WebSocketMessage(from: .server, atMs: 2, content: .text("never")),
        ])
        #expect(conversation.start() == [.send(.text("bye"), after: .zero), .close(code: 4000, reason: "done", after: .zero)])
        #expect(conversation.isOver && !conversation.clientHasClosed)
    }

    @Test func redactedValuesAndSecretsMatchAnyLiveValue() throws {
        let secrets = try Secrets(["TOKEN": "live-token-123"])
        var conversation = WebSocketConversation([
            WebSocketMessage(from: .client, atMs: 0, content: .text(#"{"password":"<redacted>","token":"<TOKEN>"}"#)),
            WebSocketMessage(from: .server, atMs: 1, content: .text("ok")),
        ], secrets: secrets)
        #expect(conversation.start() == [])
        #expect(conversation.received(.text(#"{"token":"live-token-123","password":"hunter2"}"#)) == [.send(.text("ok"), after: .zero)])
    }

    @Test func aCloseReasonIsCutToWhatAFrameHoldsAtACharacterBoundary() {
        let reason = WebSocketConversation.closeReason("expected " + String(repeating: "é", count: 100))
        #expect(reason.utf8.count <= 123 && reason.hasPrefix("expected éé"))
    }

    @Test func theCassetteFormRoundTripsAndRefusesAMessageWithTwoForms() throws {
        let interaction = Interaction(request: CassetteRequest(method: "GET", url: "http://h/ws"), response: CassetteResponse(status: 101),
                                      websocket: Self.chat + [WebSocketMessage(from: .client, atMs: 500, content: .close(code: nil, reason: ""))])
        let data = try JSONEncoder().encode(interaction)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""base64":"AAEC""#) && text.contains(#""close":null"#))
        #expect(try JSONDecoder().decode(Interaction.self, from: data) == interaction)
        let twoForms = Data(#"{"from": "client", "atMs": 1, "text": "a", "base64": "AA=="}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(WebSocketMessage.self, from: twoForms) }
        let badSide = Data(#"{"from": "proxy", "text": "a"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(WebSocketMessage.self, from: badSide) }
    }

    @Test func redactionAppliesToJSONTextMessagesAndSecretsToAll() throws {
        var interaction = Interaction(request: CassetteRequest(method: "GET", url: "http://h/ws"), response: CassetteResponse(status: 101))
        interaction.websocket = [
            WebSocketMessage(from: .client, atMs: 0, content: .text(#"{"password":"hunter2","q":"live-token-123"}"#)),
            WebSocketMessage(from: .server, atMs: 1, content: .binary(Data("live-token-123".utf8))),
        ]
        let concealed = try Secrets(["TOKEN": "live-token-123"]).conceal(interaction)
        let (redacted, changes) = Redactor(rules: RedactionRules(jsonPaths: [try JSONPath("$.password")])).redact(concealed)
        #expect(redacted.websocket?[0].content == .text(#"{"password":"<redacted>","q":"<TOKEN>"}"#))
        #expect(redacted.websocket?[1].content == .binary(Data("<TOKEN>".utf8)))
        #expect(changes == ["websocket message 0 $.password"])
    }

    @Test func aStubAnswersAnUpgradeWithAScriptedConversationTemplatedFromTheHandshake() throws {
        let json = #"{"request": {"path": "/rooms/{room}"}, "response": {"templated": true, "websocket": [{"from": "server", "text": "hello {{path.room}}"}, {"from": "client", "text": "ping"}, {"from": "server", "atMs": 5, "text": "pong"}]}}"#
        let stubs = try Stub.decodeList(from: Data(json.utf8))
        #expect(stubs.first.map { if case .response(let response) = $0.answer { response.status } else { 0 } } == 101)
        let player = Player(cassettes: [], stubs: stubs)
        guard case .played(let playback) = player.play(CassetteRequest(method: "GET", url: "http://h/rooms/blue"), session: "") else {
            Issue.record("the stub answers")
            return
        }
        var conversation = try #require(playback.conversation)
        #expect(conversation.start() == [.send(.text("hello blue"), after: .zero)])
        #expect(conversation.received(.text("ping")) == [.send(.text("pong"), after: .zero)])
        let wrongStatus = #"{"response": {"status": 200, "websocket": []}}"#
        #expect(throws: CassetteError.self) { try Stub.decodeList(from: Data(wrongStatus.utf8)) }
    }
}
