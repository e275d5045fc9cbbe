import Foundation
import TapedeckCore

/// A recorded WebSocket conversation as `tapedeck inspect` shows it: how many messages each side
/// sent, their size, and the messages themselves (in `--json` as the cassette holds them).
package struct ConversationSummary: Sendable, Hashable, Codable {
    /// How many messages, close frames included.
    package var messages: Int
    /// How many the client sent.
    package var fromClient: Int
    /// How many the server sent.
    package var fromServer: Int
    /// The payload bytes: text as UTF-8, binary data and close reasons.
    package var bytes: Int
    /// The messages, in order.
    package var conversation: [WebSocketMessage]

    /// Summarises a conversation.
    package init(_ conversation: [WebSocketMessage]) {
        self.conversation = conversation
        messages = conversation.count
        fromClient = conversation.filter { $0.from == .client }.count
        fromServer = messages - fromClient
        bytes = conversation.reduce(0) { total, message in
            switch message.content {
            case .text(let text): total + text.utf8.count
            case .binary(let data): total + data.count
            case .close(_, let reason): total + reason.utf8.count
            }
        }
    }

    /// One line per message, such as `    3.5 ms  server text "hi"`, a line break in a text shown as `\n`.
    package func lines(milliseconds: (Double) -> String) -> [String] {
        conversation.map { message in
            let shown = message.summary(limit: 80).replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
            return "    \(milliseconds(message.atMs)) ms  \(shown)"
        }
    }
}
