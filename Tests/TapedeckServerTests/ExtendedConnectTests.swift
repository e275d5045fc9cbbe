import Foundation
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
@testable import TapedeckServer
import Testing

/// RFC 8441 on an `EmbeddedChannel` standing for an HTTP/2 stream: an extended CONNECT goes on as
/// the HTTP/1.1 upgrade it stands for, other protocols are refused, and an accepted stream carries
/// the WebSocket framing in DATA frames. Chromium over real sockets is in `WebSocketTests`.
@Suite struct ExtendedConnectTests {
    private func headers(_ fields: [(String, String)], endStream: Bool = false) -> HTTP2Frame.FramePayload {
        .headers(.init(headers: HPACKHeaders(fields), endStream: endStream))
    }

    @Test func anExtendedConnectForWebSocketGoesOnAsAnUpgradeWithAKeyOfItsOwn() throws {
        let connect = ExtendedConnect()
        let channel = EmbeddedChannel(handler: connect)
        try channel.writeInbound(headers([(":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "https"),
                                          (":path", "/chat?room=1"), (":authority", "example.test"),
                                          ("sec-websocket-version", "13"), ("origin", "https://example.test")]))
        guard case .headers(let request)? = try channel.readInbound(as: HTTP2Frame.FramePayload.self) else {
            Issue.record("the request did not go on")
            return
        }
        #expect(connect.isWebSocket)
        #expect(request.endStream, "the handshake is decided without waiting for the stream's end")
        #expect(request.headers.first(name: ":method") == "GET")
        #expect(request.headers[":protocol"].isEmpty)
        #expect(request.headers.first(name: ":path") == "/chat?room=1")
        #expect(request.headers.first(name: "upgrade") == "websocket")
        #expect(request.headers.first(name: "origin") == "https://example.test")
        #expect(request.headers["sec-websocket-version"] == ["13"], "kept once")
        let key = try #require(request.headers.first(name: "sec-websocket-key"))
        #expect(Data(base64Encoded: key)?.count == 16)
        #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
    }

    @Test func anotherProtocolIsRefusedWith501AndAPlainRequestPassesUntouched() throws {
        let refusing = EmbeddedChannel(handler: ExtendedConnect())
        try refusing.writeInbound(headers([(":method", "CONNECT"), (":protocol", "webtransport"), (":scheme", "https"),
                                           (":path", "/"), (":authority", "example.test")]))
        #expect(try refusing.readInbound(as: HTTP2Frame.FramePayload.self) == nil)
        guard case .headers(let answer)? = try refusing.readOutbound(as: HTTP2Frame.FramePayload.self) else {
            Issue.record("no answer")
            return
        }
        #expect(answer.headers.first(name: ":status") == "501" && answer.endStream)
        #expect(answer.headers.first(name: "tapedeck-error")?.contains("webtransport") == true)

        let connect = ExtendedConnect()
        let plain = EmbeddedChannel(handler: connect)
        let get = headers([(":method", "GET"), (":scheme", "https"), (":path", "/a"), (":authority", "example.test")], endStream: true)
        try plain.writeInbound(get)
        guard case .headers(let passed)? = try plain.readInbound(as: HTTP2Frame.FramePayload.self) else {
            Issue.record("the request did not go on")
            return
        }
        #expect(passed.headers == HPACKHeaders([(":method", "GET"), (":scheme", "https"), (":path", "/a"), (":authority", "example.test")]))
        #expect(!connect.isWebSocket)
    }

    @Test func theAnswerIsA200WithoutTheUpgradesOwnHeaders() {
        let switching = HTTPResponseHead(version: .http2, status: .switchingProtocols, headers: [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": "x", "Sec-WebSocket-Extensions": "permessage-deflate",
            "Sec-WebSocket-Protocol": "chat",
        ])
        let answer = ExtendedConnect.answer(standingFor: switching)
        #expect(answer.status == .ok)
        #expect(answer.headers.map(\.name) == ["Sec-WebSocket-Extensions", "Sec-WebSocket-Protocol"])
    }

    @Test func theStreamCarriesTheFramingInDataFramesAndEndsWhenClosed() throws {
        let channel = EmbeddedChannel(handler: WebSocketOverHTTP2Stream())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(bytes: [0x81, 0x80])))))
        #expect(try channel.readInbound(as: ByteBuffer.self) == ByteBuffer(bytes: [0x81, 0x80]))

        try channel.writeOutbound(ByteBuffer(bytes: [0x81, 0x01, 0x61]))
        guard case .data(let sent)? = try channel.readOutbound(as: HTTP2Frame.FramePayload.self), case .byteBuffer(let bytes) = sent.data else {
            Issue.record("no DATA frame")
            return
        }
        #expect(bytes == ByteBuffer(bytes: [0x81, 0x01, 0x61]) && !sent.endStream)

        channel.close(promise: nil)
        channel.embeddedEventLoop.run()
        guard case .data(let end)? = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else {
            Issue.record("the stream was not ended")
            return
        }
        #expect(end.endStream)
        #expect(!channel.isActive)
    }
}
