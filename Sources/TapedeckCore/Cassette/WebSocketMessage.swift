import Foundation

/// One message of a recorded WebSocket conversation (SPEC section 13): who sent it, when, and
/// what it held. Fragmented messages are stored whole; pings and pongs are not stored.
public struct WebSocketMessage: Sendable, Hashable {
    /// The side that sent a message.
    public enum Side: String, Sendable, Hashable, Codable {
        /// The client that opened the conversation.
        case client
        /// The service that accepted the upgrade.
        case server
    }

    /// What a message held.
    public enum Content: Sendable, Hashable {
        /// A text message (valid UTF-8).
        case text(String)
        /// A binary message.
        case binary(Data)
        /// A close frame, with its code (none when the frame had no body) and reason.
        case close(code: UInt16?, reason: String)
    }

    /// Who sent it.
    public var from: Side
    /// When, in milliseconds after the upgrade was answered.
    public var atMs: Double
    /// What it held.
    public var content: Content

    /// Creates a message.
    public init(from: Side, atMs: Double, content: Content) {
        self.from = from
        self.atMs = atMs
        self.content = content
    }

    /// The message as a person reads it in a log line or a close reason: text (shortened to
    /// `limit` characters), `binary N bytes`, or `close CODE REASON`.
    public func summary(limit: Int = 60) -> String {
        switch content {
        case .text(let text):
            let shown = text.count > limit ? String(text.prefix(limit)) + "…" : text
            return "\(from.rawValue) text \"\(shown)\""
        case .binary(let data):
            return "\(from.rawValue) binary \(data.count) bytes"
        case .close(let code, let reason):
            return "\(from.rawValue) close \(code.map(String.init) ?? "(no code)")\(reason.isEmpty ? "" : " \"\(reason)\"")"
        }
    }

    /// Whether `received`, a message from the client, is the one recorded here: text equal
    /// exactly or as JSON by value (members in any order, and a value recorded as `<redacted>`
    /// matching any, as bodies match), binary byte for byte, and any close for a recorded close.
    public func matches(_ received: Content) -> Bool {
        switch (content, received) {
        case (.text(let recorded), .text(let text)):
            if recorded == text { return true }
            guard let expected = JSONValue(parsing: Data(recorded.utf8)), let actual = JSONValue(parsing: Data(text.utf8)) else {
                return false
            }
            return Self.value(actual, matches: expected)
        case (.binary(let recorded), .binary(let data)):
            return recorded == data
        case (.close, .close):
            return true
        default:
            return false
        }
    }
}

extension WebSocketMessage {
    /// JSON equality where a recorded `<redacted>` stands for any value.
    private static func value(_ actual: JSONValue, matches expected: JSONValue) -> Bool {
        switch (expected, actual) {
        case (.string(Redactor.placeholder), _):
            return true
        case (.object(let expected), .object(let actual)):
            return expected.count == actual.count && expected.allSatisfy { name, value in
                actual[name].map { Self.value($0, matches: value) } ?? false
            }
        case (.array(let expected), .array(let actual)):
            return expected.count == actual.count && zip(actual, expected).allSatisfy { Self.value($0, matches: $1) }
        default:
            return expected == actual
        }
    }
}

extension WebSocketMessage: Codable {
    private typealias CodingKeys = WebSocketMessageCodingKey

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        from = try container.decode(Side.self, forKey: .from)
        atMs = try container.decodeMillisecondsIfPresent(forKey: .atMs) ?? 0
        let forms = [CodingKeys.text, .base64, .close].filter(container.contains)
        guard forms.count == 1 else {
            throw DecodingError.dataCorruptedError(forKey: .text, in: container,
                                                   debugDescription: "a WebSocket message has exactly one of \"text\", \"base64\" or \"close\"")
        }
        switch forms[0] {
        case .text:
            content = .text(try container.decode(String.self, forKey: .text))
        case .base64:
            guard let data = Data(base64Encoded: try container.decode(String.self, forKey: .base64)) else {
                throw DecodingError.dataCorruptedError(forKey: .base64, in: container, debugDescription: "not valid base64")
            }
            content = .binary(data)
        default:
            let code = try container.decodeIfPresent(UInt16.self, forKey: .close)
            if let refusal = code.flatMap(WebSocketMessage.closeCodeRefusal) {
                throw DecodingError.dataCorruptedError(forKey: .close, in: container, debugDescription: refusal)
            }
            let reason = try container.decodeIfPresent(String.self, forKey: .reason) ?? ""
            guard reason.utf8.count <= WebSocketMessage.maximumReasonBytes else {
                throw DecodingError.dataCorruptedError(forKey: .reason, in: container,
                                                       debugDescription: "a close reason has at most \(WebSocketMessage.maximumReasonBytes) bytes")
            }
            content = .close(code: code, reason: reason)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(atMs, forKey: .atMs)
        switch content {
        case .text(let text):
            try container.encode(text, forKey: .text)
        case .binary(let data):
            try container.encode(data.base64EncodedString(), forKey: .base64)
        case .close(let code, let reason):
            // A close frame with no code is written `"close": null`, so the form stays visible.
            if let code { try container.encode(code, forKey: .close) } else { try container.encodeNil(forKey: .close) }
            if !reason.isEmpty { try container.encode(reason, forKey: .reason) }
        }
        try container.encode(from, forKey: .from)
    }

    /// The most bytes a close frame's reason may have (125 for the frame, less 2 for the code).
    public static let maximumReasonBytes = 123

    /// Why a close frame may not carry `code`, or nil when it may (RFC 6455 section 7.4): the
    /// codes defined for use (1000 to 1003, 1007 to 1014) and those left to libraries and
    /// applications (3000 to 4999). 1005, 1006 and 1015 only report a close without a frame, and
    /// the rest are reserved: a client receiving one fails the connection (1002), as a peer
    /// sending one to Tapedeck gets 1002 too.
    public static func closeCodeRefusal(_ code: UInt16) -> String? {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: nil
        default: "close code \(code) may not be sent in a close frame (RFC 6455 section 7.4): use 1000 to 1003, 1007 to 1014 or 3000 to 4999"
        }
    }

    /// The HTTP scheme a WebSocket handshake travels over, which a cassette keeps: `ws` is `http`
    /// and `wss` is `https` (any case); any other scheme is returned as it is.
    public static func handshakeScheme(_ scheme: String) -> String {
        switch scheme.lowercased() {
        case "ws": "http"
        case "wss": "https"
        default: scheme
        }
    }
}
