import TapedeckCore

/// A WebSocket conversation as the inspector shows it: the messages (as recorded, or as played
/// until the client left the recording) and, on replay, where and how the client left it.
package struct InspectedConversation: Sendable, Hashable, Codable {
    /// The messages, in order.
    package var messages: [WebSocketMessage]
    /// On replay, the index of the recorded message the client's message did not match.
    package var leftAt: Int?
    /// What the recording expected there (none when it was over).
    package var expected: WebSocketMessage?
    /// What the client sent instead.
    package var received: WebSocketMessage?

    /// A recorded conversation, shown whole.
    package init(recorded messages: [WebSocketMessage]) {
        self.messages = messages
    }

    /// A played conversation: the recording up to where the client got, and where it left.
    package init(played conversation: WebSocketConversation) {
        messages = Array(conversation.messages.prefix(conversation.position))
        if let departure = conversation.departure {
            leftAt = departure.index
            expected = departure.expected
            received = WebSocketMessage(from: .client, atMs: 0, content: departure.received)
        }
    }
}
