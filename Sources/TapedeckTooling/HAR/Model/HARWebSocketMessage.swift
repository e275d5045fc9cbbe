import Foundation
import TapedeckCore

/// One message of Chrome's `_webSocketMessages`: `send` (from the client) or `receive`, when
/// (seconds since 1970), the opcode (1 text, 2 binary, 8 close) and the data (text, or base64 for
/// binary). A close carries its code in Tapedeck's `_closeCode` and its reason as the data.
package struct HARWebSocketMessage: Sendable, Hashable, Codable {
    package var type: String
    package var time: Double
    package var opcode: Int
    package var data: String
    package var closeCode: UInt16?

    private enum CodingKeys: String, CodingKey {
        case type, time, opcode, data
        case closeCode = "_closeCode"
    }

    /// A cassette message as Chrome writes it, `upgraded` being when the 101 arrived.
    package init(_ message: WebSocketMessage, upgraded: Date) {
        type = message.from == .client ? "send" : "receive"
        time = upgraded.timeIntervalSince1970 + message.atMs / 1000
        switch message.content {
        case .text(let text): (opcode, data) = (1, text)
        case .binary(let bytes): (opcode, data) = (2, bytes.base64EncodedString())
        case .close(let code, let reason): (opcode, data, closeCode) = (8, reason, code)
        }
    }

    /// The cassette message, timed from `upgraded`; nil for an opcode that is not a message (ping, pong).
    package func message(upgraded: Date) throws(HARMessageError) -> WebSocketMessage? {
        guard type == "send" || type == "receive" else { throw HARMessageError(reason: "type \"\(type)\" is not send or receive") }
        let content: WebSocketMessage.Content
        switch opcode {
        case 1: content = .text(data)
        case 2:
            guard let bytes = Data(base64Encoded: data) else { throw HARMessageError(reason: "binary data is not valid base64") }
            content = .binary(bytes)
        case 8: content = .close(code: closeCode, reason: data)
        default: return nil
        }
        let atMs = max(0, ((time - upgraded.timeIntervalSince1970) * 1000 * 1000).rounded() / 1000)
        return WebSocketMessage(from: type == "send" ? .client : .server, atMs: atMs, content: content)
    }
}

/// A `_webSocketMessages` entry Tapedeck cannot read.
package struct HARMessageError: Error, Sendable {
    package var reason: String
}
