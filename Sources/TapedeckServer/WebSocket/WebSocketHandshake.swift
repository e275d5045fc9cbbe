import Crypto
import Foundation
import HTTPTypes
import NIOHTTP1
@_spi(Internals) import TapedeckCore
import TapedeckNIO

/// The rules of a WebSocket opening handshake (RFC 6455 section 4) the servers need: whether a
/// request asks for an upgrade, and the 101 that accepts it.
enum WebSocketHandshake {
    /// Whether the request asks to become a WebSocket (`Upgrade: websocket`).
    static func isUpgrade(_ head: HTTPRequest) -> Bool {
        head.headerFields[elementsOf: .upgrade].contains { $0.caseInsensitiveEquals("websocket") }
    }

    /// The headers of an upgrade that are the handshake's own: a recording proxy and the
    /// upstream each negotiate them (the key and its accept value, the version, extensions).
    static let negotiatedHeaders: Set<String> = [
        "connection", "upgrade", "sec-websocket-key", "sec-websocket-accept", "sec-websocket-version", "sec-websocket-extensions",
    ]

    /// `Sec-WebSocket-Accept` for a client's key: base64 of the SHA-1 of the key and the RFC's GUID.
    static func acceptValue(forKey key: String) -> String {
        let digest = Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))
        return Data(digest).base64EncodedString()
    }

    /// The client's key, when it is one: 16 bytes in base64.
    static func key(of head: HTTPRequest) -> String? {
        guard let key = head.headerFields[values: .secWebSocketKey].first?.trimmingCharacters(in: .whitespaces),
              Data(base64Encoded: key)?.count == 16 else { return nil }
        return key
    }

    /// The 101 accepting `request`, keeping the answer's other headers (a chosen
    /// `Sec-WebSocket-Protocol`, cookies), and the `permessage-deflate` agreed with this client
    /// when it offered one (no other extension is taken). The conversation is readable either way:
    /// messages are decompressed as they are read.
    static func accepting(_ request: IncomingRequest, key: String, answer headers: HTTPHeaders) -> Acceptance {
        var kept = HTTPHeaders(headers.filter { !negotiatedHeaders.contains($0.name.lowercased()) && !isFraming($0.name) }).legal
        kept.add(name: "Upgrade", value: "websocket")
        kept.add(name: "Connection", value: "Upgrade")
        kept.add(name: "Sec-WebSocket-Accept", value: acceptValue(forKey: key))
        let deflate = PerMessageDeflate.accepting(offers: request.head.headerFields[elementsOf: .secWebSocketExtensions].map(String.init))
        if let deflate { kept.add(name: "Sec-WebSocket-Extensions", value: deflate.response) }
        return Acceptance(head: HTTPResponseHead(version: request.version, status: .switchingProtocols, headers: kept),
                          deflate: deflate?.agreement)
    }

    /// A client's upgrade, accepted: the 101, and the compression agreed.
    struct Acceptance {
        var head: HTTPResponseHead
        var deflate: PerMessageDeflate?
    }

    private static func isFraming(_ name: String) -> Bool {
        name.caseInsensitiveEquals("Content-Length") || name.caseInsensitiveEquals("Transfer-Encoding")
    }
}
