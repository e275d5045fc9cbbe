import NIOCore
import NIOHTTP1
import NIOSSL
import TapedeckCore
import TapedeckNIO

/// A WebSocket upgrade going to the live service to be recorded: where, the handshake as the
/// upstream gets it, and what happens to the conversation.
package struct WebSocketRecording: Sendable {
    var host: String
    var port: Int
    var tls: NIOSSLContext?
    /// The client's request head as the upstream gets it (secrets revealed, `Host` the target's).
    var head: HTTPRequestHead
    /// The request as the cassette keeps it.
    var cassetteRequest: CassetteRequest
}

/// Opens the upstream side of a recorded WebSocket conversation: the client's handshake, without
/// what each side agrees apart (key, extensions), asked by HTTP/1.1's upgrade with the proxy's own
/// key and `permessage-deflate` offer (``WebSocketClientUpgrade``), so messages are recorded
/// decompressed.
enum UpstreamWebSocket {
    static func open(_ recording: WebSocketRecording, clientKey: String, maxMessageSize: Int,
                     on eventLoop: any EventLoop) -> EventLoopFuture<WebSocketUpgradeAnswer> {
        var head = recording.head
        head.headers = HTTPHeaders(head.headers.filter { !WebSocketHandshake.negotiatedHeaders.contains($0.name.lowercased()) })
        return WebSocketClientUpgrade.open(host: recording.host, port: recording.port, tls: recording.tls, head: head, key: clientKey,
                                           maxMessageSize: maxMessageSize, on: eventLoop)
    }
}
