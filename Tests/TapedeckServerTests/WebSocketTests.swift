import Foundation
import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// What `scripts/ws_calls.py` prints; a client that fails is a failed expectation naming its exit and error.
private func talk(_ url: String, _ steps: [String], proxy: String? = nil, cafile: URL? = nil,
                  showExtensions: Bool = false) async throws -> String {
    var options = showExtensions ? ["--show-extensions"] : []
    if let proxy { options += ["--proxy", proxy] }
    if let cafile { options += ["--cafile", cafile.path] }
    let result = try await Subprocess.run(executable: "/usr/bin/env",
                                          arguments: WebSocketCalls.arguments(url, options: options, steps: steps))
    #expect(result.status == 0, "\(result.text)(exit \(result.status): \(result.error))")
    return result.text
}

/// `path` on the WebSocket scheme of an `http://` base.
private func webSocketURL(_ base: String, _ path: String) -> String {
    base.replacingOccurrences(of: "http://", with: "ws://") + path
}

/// WebSocket conversations recorded from a live service and replayed (SPEC section 13), with
/// Python's `websockets` as the client (`scripts/ws_calls.py`) and as the service
/// (`scripts/ws_upstream.py`, which offers permessage-deflate), and headless Chromium from a page.
@Suite struct WebSocketTests {
    /// The conversation every recording test holds: a greeting, JSON, a fragmented answer, binary,
    /// a ping (answered, never stored) and a close.
    private static let steps = ["recv", #"send:{"op":"join","room":"a","password":"hunter2"}"#, "recv", "send:frag", "recv",
                                "bin:010203", "recv", "ping", "close:1000:done"]

    /// The WebSocket service behind TLS, with a certificate for 127.0.0.1 made for the test.
    private func secureUpstream(in directory: URL) async throws -> (ExampleUpstream, certificate: URL) {
        let (certificate, key) = try await LoopbackCertificate.make(in: directory)
        return (try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: ["--cert", certificate.path, "--key", key.path]), certificate)
    }

    @Test(.requires(.websockets)) func aConversationIsRecordedWholeAndReplayedAsItWasHeard() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let live = try await talk(webSocketURL(upstream.baseURL, "/chat?x=1"), Self.steps)
        #expect(live == """
            text welcome /chat?x=1
            text echo {"op":"join","room":"a","password":"hunter2"}
            text part one, part two
            binary 030201
            closed 1000 done

            """)

        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "chat.json")
        let settings = RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL),
                                      redaction: RedactionRules(jsonPaths: [try JSONPath("$.password")]))
        try await RecordHarness.run(settings: settings) { harness in
            let proxied = try await talk(webSocketURL(harness.base, "/chat?x=1"), Self.steps)
            #expect(proxied == live, "the client hears through the proxy what it heard live")
            try await waitUntil { harness.responder.recorder.interactionCount == 1 }
        }

        let interaction = try #require(try CassetteCodec().load(file).interactions.first)
        #expect(interaction.response.status == 101)
        #expect(interaction.request.url.hasSuffix("/chat?x=1"))
        let messages = try #require(interaction.websocket)
        #expect(messages.map(\.from) == [.server, .client, .server, .client, .server, .client, .server, .client, .server])
        #expect(messages.map(\.content) == [
            .text("welcome /chat?x=1"),
            .text(#"{"op":"join","password":"<redacted>","room":"a"}"#),
            .text(#"echo {"op":"join","room":"a","password":"hunter2"}"#),
            .text("frag"),
            .text("part one, part two"),
            .binary(Data([1, 2, 3])),
            .binary(Data([3, 2, 1])),
            .close(code: 1000, reason: "done"),
            .close(code: 1000, reason: "done"),
        ], "fragments joined, no pings or pongs, readable text although both legs were compressed")
        #expect(messages.map(\.atMs) == messages.map(\.atMs).sorted())

        try await ReplayHarness.run(files: [file]) { harness in
            let replayed = try await talk(webSocketURL(harness.base, "/chat?x=1"), Self.steps)
            #expect(replayed == live, "the replay plays the conversation as the live service did")
        }
    }

    @Test(.requires(.websockets)) func permessageDeflateIsAgreedWithEachSideApartAndTheCassetteHoldsPlainText() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "deflate.json")
        let long = String(repeating: "compressible ", count: 200)
        let binary = String(repeating: "0001", count: 1500)
        let steps = ["recv", "send:extensions?", "recv", "send:\(long)", "recv", "bin:\(binary)", "recv",
                     "close:1000:"]
        let settings = RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL))
        try await RecordHarness.run(settings: settings) { harness in
            let lines = try await talk(webSocketURL(harness.base, "/z"), steps, showExtensions: true).split(separator: "\n")
            // websockets as the client offers `permessage-deflate; client_max_window_bits`: the proxy takes it.
            #expect(lines.first == "extensions permessage-deflate", "the client's leg")
            // The proxy offered it upstream, and websockets as the service agreed, with its own windows.
            #expect(lines.dropFirst(2).first?.hasPrefix("text extensions permessage-deflate;") == true, "the upstream's leg: \(lines)")
            #expect(lines.dropFirst(3).first == "text echo \(long)")
            #expect(lines.dropFirst(4).first.map(String.init) == "binary " + String(repeating: "0100", count: 1500))
            try await waitUntil { harness.responder.recorder.interactionCount == 1 }
        }
        let messages = try #require(try CassetteCodec().load(file).interactions.first?.websocket)
        #expect(messages.map(\.content).contains(.text("echo \(long)")), "stored decompressed")
        #expect(messages.map(\.content).contains(.binary(Data(repeating: 0, count: 1500) + Data(repeating: 1, count: 1500))) == false)
        #expect(messages.map(\.content).contains(.binary(Data((0..<3000).map { UInt8($0 % 2) }))))

        upstream.stop()
        try await ReplayHarness.run(files: [file]) { harness in
            let lines = try await talk(webSocketURL(harness.base, "/z"), steps, showExtensions: true).split(separator: "\n")
            #expect(lines.first == "extensions permessage-deflate", "the replay server agrees it too")
            #expect(lines.dropFirst(3).first == "text echo \(long)")
            #expect(lines.dropFirst(4).first.map(String.init) == "binary " + String(repeating: "0100", count: 1500))
        }
        // A client that offers nothing gets plain frames, from the same recording.
        try await ReplayHarness.run(files: [file]) { harness in
            let plain = try await Subprocess.run(executable: "/usr/bin/env", arguments: WebSocketCalls.arguments(
                webSocketURL(harness.base, "/z"), options: ["--show-extensions", "--no-compression"], steps: steps))
            #expect(plain.text.hasPrefix("extensions none\n"), "\(plain.text) \(plain.error)")
            #expect(plain.text.contains("text echo \(long)\n"))
        }
    }

    @Test(.requires(.curl, .websockets)) func aClientOffTheRecordingIsClosedWith1008AndTheInspectorShowsWhere() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette("""
            {"version": 1, "interactions": [{
              "request": {"method": "GET", "url": "http://127.0.0.1/feed"},
              "response": {"status": 101},
              "websocket": [
                {"from": "server", "atMs": 0, "text": "hello"},
                {"from": "client", "atMs": 5, "text": "{\\"subscribe\\": \\"prices\\"}"},
                {"from": "server", "atMs": 9, "text": "subscribed"}
              ]}]}
            """, named: "off.json", in: directory)
        try await ReplayHarness.run(files: [file]) { harness in
            let heard = try await talk(webSocketURL(harness.base, "/feed"), ["recv", #"send:{"subscribe": "news"}"#, "recv"])
            #expect(heard == """
                text hello
                closed 1008 expected client text "{"subscribe": "prices"}"; got client text "{"subscribe": "news"}"

                """)
            let id = try #require(harness.responder.answers.exchanges?.summaries().exchanges.first?.id)
            // A handshake nothing matches is diagnosed as any request is, before any upgrade.
            let miss = try await Curl.run(["-sS", "--write-out", "\n%{http_code}", "-H", "Upgrade: websocket", "-H", "Connection: Upgrade",
                                           "-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                                           harness.base + "/elsewhere"])
            #expect(miss.text.hasSuffix("\n599") && miss.text.contains("/feed"), "\(miss.text)")
            // The conversation is kept once its connection ended.
            try await waitUntil { harness.responder.answers.exchanges?.exchange(id: id)?.conversation != nil }
            let exchange = try JSONDecoder().decode(InspectedExchange.self, from: try await Curl.run([harness.base + "/__tapedeck/exchanges/\(id)"]).output)
            let conversation = try #require(exchange.conversation)
            #expect(conversation.leftAt == 1)
            #expect(conversation.messages.map(\.content) == [.text("hello")])
            #expect(conversation.received?.content == .text(#"{"subscribe": "news"}"#))
            #expect(conversation.expected?.content == .text(#"{"subscribe": "prices"}"#))
            // The inspector page, as headless Chromium renders it, shows where the client left.
            if Chromium.path != nil {
                let dom = try await Chromium.dumpDOM(harness.base + "/__tapedeck/ui#exchange=\(id)")
                #expect(dom.contains("WebSocket conversation (1 messages)"), "\(dom)")
                #expect(dom.contains("Left the recording at message 1"), "\(dom)")
            }
        }
    }

    @Test(.requires(.curl, .websockets)) func aStubAnswersAnUpgradeWithAConversationTemplatedFromTheHandshake() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = try Fixtures.writeCassette("""
            {"version": 1, "stubs": [{"request": {"path": "/rooms/{room}"}, "response": {"templated": true, "websocket": [
              {"from": "server", "text": "welcome to {{path.room}}"},
              {"from": "client", "text": "ping"},
              {"from": "server", "text": "pong from {{path.room}}"},
              {"from": "server", "close": 4001, "reason": "that is all"}
            ]}}]}
            """, named: "stubs.json", in: directory)
        try await ReplayHarness.run(files: [stubs]) { harness in
            let heard = try await talk(webSocketURL(harness.base, "/rooms/blue"), ["recv", "send:ping", "recv", "recv"])
            #expect(heard == "text welcome to blue\ntext pong from blue\nclosed 4001 that is all\n")
            let plain = try await Curl.run(["-sS", "--write-out", "%{http_code}", harness.base + "/rooms/blue"])
            #expect(plain.text.hasSuffix("426"), "a request that does not ask to upgrade: \(plain.text)")
        }
    }

    /// A conversation with no message either way for the idle timeout (300 ms here) is closed with
    /// 1001, so idle clients cannot hold sockets open for as long as they like; pings do not count.
    @Test(.requires(.websockets), arguments: [false, true])
    func aConversationIdleForTheIdleTimeoutIsClosedGoingAway(pinging: Bool) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubs = try Fixtures.writeCassette("""
            {"version": 1, "stubs": [{"request": {"path": "/quiet"}, "response": {"websocket": [
              {"from": "server", "text": "hello"}, {"from": "client", "text": "never sent"}
            ]}}]}
            """, named: "stubs.json", in: directory)
        try await ReplayHarness.run(files: [stubs], configure: { $0.idleTimeout = .milliseconds(300 * Int64(Deadlines.scale)) }) { harness in
            let wait = pinging ? "pingfor:\(1.2 * Double(Deadlines.scale))" : "recv"
            let heard = try await talk(webSocketURL(harness.base, "/quiet"), ["recv", wait])
            #expect(heard == "text hello\nclosed 1001 no message was sent either way for the idle timeout\n")
        }
    }

    @Test(.requires(.openssl, .websockets)) func theForwardProxyRecordsAWebSocketInsideAnInterceptedTLSTunnel() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (upstream, certificate) = try await secureUpstream(in: directory)
        defer { upstream.stop() }
        let secure = "wss://\(upstream.authority)/secure"
        let file = directory.appending(path: "forward.json")
        try await RecordHarness.run(settings: RecordSettings(cassette: file, trust: UpstreamTrust(extraRoots: [certificate]))) { harness in
            let heard = try await talk(secure, ["recv", "send:over tls", "recv", "close:1000:"], proxy: harness.base,
                                       cafile: try harness.authorityFile())
            #expect(heard == "text welcome /secure\ntext echo over tls\nclosed 1000 \n")
            try await waitUntil { harness.responder.recorder.interactionCount == 1 }
        }
        let interaction = try #require(try CassetteCodec().load(file).interactions.first)
        #expect(interaction.request.url == "https://\(upstream.authority)/secure")
        #expect(interaction.websocket?.map(\.content).prefix(3) == [.text("welcome /secure"), .text("over tls"), .text("echo over tls")])
    }

    @Test(.requires(.websockets), .enabled(if: Chromium.path != nil, Comment(rawValue: Chromium.missing)))
    func chromiumFromAPageIsRecordedAndReplayed() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "browser.json")
        let steps = ["recv", "send:hello from a page", "recv", "send:frag", "recv", "bin:0a0b", "recv", "close:1000:bye"]
        let expected = """
            text welcome /browser
            text echo hello from a page
            text part one, part two
            binary 0b0a
            closed 1000 bye

            """
        let settings = RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL))
        try await RecordHarness.run(settings: settings) { harness in
            let heard = try await Chromium.webSocket(webSocketURL(harness.base, "/browser"), steps)
            #expect(heard == expected)
            try await waitUntil { harness.responder.recorder.interactionCount == 1 }
        }
        let interaction = try #require(try CassetteCodec().load(file).interactions.first)
        #expect(interaction.request.url == "http://\(upstream.authority)/browser")
        #expect(interaction.websocket?.map(\.content) == [
            .text("welcome /browser"), .text("hello from a page"), .text("echo hello from a page"), .text("frag"),
            .text("part one, part two"), .binary(Data([10, 11])), .binary(Data([11, 10])),
            .close(code: 1000, reason: "bye"), .close(code: 1000, reason: "bye"),
        ])

        upstream.stop()
        try await ReplayHarness.run(files: [file]) { harness in
            let replayed = try await Chromium.webSocket(webSocketURL(harness.base, "/browser"), steps)
            #expect(replayed == expected, "the page hears from the replay what it heard live")
            let off = try await Chromium.webSocket(webSocketURL(harness.base, "/browser"), ["recv", "send:something else", "recv"])
            #expect(off == "text welcome /browser\nclosed 1008 expected client text \"hello from a page\"; got client text \"something else\"\n")
        }
    }

    @Test(.requires(.openssl, .websockets), .enabled(if: Chromium.path != nil, Comment(rawValue: Chromium.missing)))
    func chromiumSpeaksWebSocketOverHTTP2ByExtendedConnectThroughTheInterception() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (upstream, certificate) = try await secureUpstream(in: directory)
        defer { upstream.stop() }
        // The page comes first (the service answers it 426, a page all the same), so the socket to
        // its origin rides the page's HTTP/2 connection to the proxy: extended CONNECT.
        let origin = "https://\(upstream.authority)"
        let socket = "wss://\(upstream.authority)/h2"
        let steps = ["recv", "send:over h2", "recv", "close:1000:done"]
        let expected = "text welcome /h2\ntext echo over h2\nclosed 1000 done\n"
        let file = directory.appending(path: "h2.json")
        try await RecordHarness.run(settings: RecordSettings(cassette: file, trust: UpstreamTrust(extraRoots: [certificate]))) { harness in
            let heard = try await Chromium.webSocket(socket, steps, page: origin + "/page",
                                                     flags: Chromium.proxy(harness.base) + ["--ignore-certificate-errors"])
            #expect(heard == expected)
            try await waitUntil { (try? CassetteCodec().load(file).interactions.contains { $0.websocket != nil }) == true }
        }
        let interactions = try CassetteCodec().load(file).interactions
        let handshake = try #require(interactions.first { $0.websocket != nil })
        #expect(handshake.request.url == socket.replacingOccurrences(of: "wss:", with: "https:"))
        #expect(handshake.response.status == 101, "recorded as the upgrade it stands for")
        // HTTP/2 header names are lowercase; Chromium's HTTP/1.1 handshake says `User-Agent`.
        let names = handshake.request.headers.map(\.name)
        #expect(names.contains("user-agent"), "the handshake came over HTTP/2: \(names)")
        #expect(handshake.websocket?.map(\.content).prefix(3) == [.text("welcome /h2"), .text("over h2"), .text("echo over h2")])

        upstream.stop()
        try await ReplayHarness.run(files: [file]) { harness in
            let replayed = try await Chromium.webSocket(socket, steps, page: origin + "/page",
                                                        flags: Chromium.proxy(harness.base) + ["--ignore-certificate-errors"])
            #expect(replayed == expected)
            let exchanges = try #require(harness.responder.answers.exchanges?.summaries().exchanges)
            let played = try #require(exchanges.first { $0.entry.url.hasSuffix("/h2") })
            let detail = try #require(harness.responder.answers.exchanges?.exchange(id: played.id))
            #expect(detail.request.headers.contains { $0.first == "user-agent" }, "replayed over HTTP/2 too: \(detail.request.headers)")
        }
    }

    @Test(.requires(.curl, .python3)) func anUpstreamThatRefusesTheUpgradeIsPassedBackAndAnUnreachableOneIs502() async throws {
        // The example upstream is plain HTTP: it answers the upgrade with an ordinary response.
        _ = try await RecordHarness.recordFromExampleUpstream { harness in
            let answer = try await Curl.run(["-sS", "--write-out", "\n%{http_code}", "-H", "Upgrade: websocket", "-H", "Connection: Upgrade",
                                             "-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                                             harness.base + "/health"])
            #expect(!answer.text.hasSuffix("\n101") && !answer.text.hasSuffix("\n502"), "\(answer.text)")
            #expect(harness.responder.recorder.interactionCount == 0)
        }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let unreachable = directory.appending(path: "unreachable.json")
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        try await RecordHarness.run(settings: RecordSettings(cassette: unreachable, target: try ReverseProxyTarget("http://127.0.0.1:\(refusing.port)"))) { harness in
            let answer = try await Curl.run(["-sS", "--write-out", "\n%{http_code}", "-H", "Upgrade: websocket", "-H", "Connection: Upgrade",
                                             "-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                                             harness.base + "/socket"])
            #expect(answer.text.hasSuffix("\n502") && answer.text.contains("cannot open the WebSocket"), "\(answer.text)")
        }
    }
}

/// Hostile and broken WebSocket peers: each closes only its own socket, with the code that names
/// what it did, while the server goes on serving others; memory stays bounded; a conversation cut
/// by the proxy's shutdown is kept as far as it went.
@Suite struct WebSocketBadInputTests {
    private static let conversation = """
        {"version": 1, "interactions": [{
          "request": {"method": "GET", "url": "http://127.0.0.1/chat"},
          "response": {"status": 101},
          "websocket": [{"from": "server", "atMs": 0, "text": "hello"}, {"from": "client", "atMs": 1, "text": "hi"},
                        {"from": "server", "atMs": 2, "text": "bye"}]}]}
        """

    /// A raw client that did the opening handshake (offering `permessage-deflate` with `deflate`)
    /// and read the greeting (compressed, then).
    private func upgraded(port: Int, path: String = "/chat", deflate: Bool = false) async throws -> RawSocket {
        let socket = try RawSocket(port: port)
        socket.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + (deflate ? "Sec-WebSocket-Extensions: permessage-deflate\r\n" : "") + "\r\n")
        let (head, _) = await socket.read { data in
            if deflate, let end = data.range(of: Data("\r\n\r\n".utf8)) { return data.endIndex > end.upperBound + 2 }
            return data.range(of: Data("hello".utf8)) != nil || data.range(of: Data("welcome".utf8)) != nil
        }
        let text = String(decoding: head, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 101 Switching Protocols"))
        #expect(text.contains("Sec-WebSocket-Extensions: permessage-deflate\r\n") == deflate, "\(text)")
        return socket
    }

    /// The close code in the last close frame of `data` (a server's frames are not masked).
    private func closeCode(in data: Data) -> UInt16? {
        guard let start = data.lastIndex(of: 0x88), data.index(start, offsetBy: 3) < data.endIndex else { return nil }
        let bytes = data[data.index(start, offsetBy: 2)...]
        return UInt16(bytes[bytes.startIndex]) << 8 | UInt16(bytes[bytes.startIndex + 1])
    }

    /// Each bad frame (masked, but for the unmasked one) and the close code it earns.
    enum BadFrame: String, CaseIterable, CustomTestStringConvertible {
        case unmasked = "an unmasked client frame"
        case reservedOpcode = "a reserved opcode"
        case longPing = "a ping of 126 bytes"
        case invalidText = "invalid UTF-8"
        case tooBig = "a message past --max-message-size"
        case compressedWithoutAgreement = "a compressed frame on a connection that agreed no compression"
        case corruptCompressed = "a compressed message that does not decompress"
        case compressedBomb = "a compressed message that decompresses past --max-message-size"
        case compressedContinuation = "RSV1 on a continuation frame"

        var testDescription: String { rawValue }

        /// Whether the offender agreed `permessage-deflate` first.
        var deflate: Bool { ![.unmasked, .reservedOpcode, .longPing, .invalidText, .tooBig, .compressedWithoutAgreement].contains(self) }

        var bytes: [UInt8] {
            switch self {
            case .unmasked: [0x81, 0x02, 0x68, 0x69]
            case .reservedOpcode: [0x83, 0x80, 0, 0, 0, 0]
            case .longPing: [0x89, 0xFE, 0x00, 0x7E, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 126)
            case .invalidText: [0x81, 0x82, 0, 0, 0, 0, 0xC3, 0x28]
            case .tooBig: [0x82, 0xFE, 0x08, 0x00, 0, 0, 0, 0] + [UInt8](repeating: 7, count: 2048)
            case .compressedWithoutAgreement: [0xC1, 0x82, 0, 0, 0, 0, 0xCA, 0x04]
            case .corruptCompressed: [0xC1, 0x84, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
            case .compressedBomb:
                // 64 KiB of zeros, a few dozen bytes compressed; the limit is 1 KiB.
                Self.masked(0xC2, PerMessageDeflateCodec(PerMessageDeflate(), role: .client).compress(Data(count: 65536)) ?? Data())
            case .compressedContinuation: [0x01, 0x81, 0, 0, 0, 0, 0x61, 0xC0, 0x81, 0, 0, 0, 0, 0x62]
            }
        }

        /// One frame with a zero mask (the payload as it is), shorter than 126 bytes.
        private static func masked(_ first: UInt8, _ payload: Data) -> [UInt8] {
            [first, 0x80 | UInt8(payload.count), 0, 0, 0, 0] + payload
        }

        var code: UInt16 {
            switch self {
            case .unmasked, .reservedOpcode, .longPing, .compressedWithoutAgreement, .corruptCompressed, .compressedContinuation: 1002
            case .invalidText: 1007
            case .tooBig, .compressedBomb: 1009
            }
        }
    }

    @Test(.requires(.websockets), arguments: BadFrame.allCases)
    func aBadFrameClosesOnlyItsSocketWithTheRightCode(_ bad: BadFrame) async throws {
        let (what, frame, code) = (bad.rawValue, bad.bytes, bad.code)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Self.conversation, named: "chat.json", in: directory)
        try await ReplayHarness.run(files: [file], configure: { $0.maxMessageSize = 1024 }) { harness in
            let bystander = try await upgraded(port: harness.server.port)
            let offender = try await upgraded(port: harness.server.port, deflate: bad.deflate)
            offender.send(Data(frame))
            let (answer, ending) = await offender.read()
            // Closed; reset when the server closed with the rest of an oversized frame unread.
            #expect(ending == .closed || ending == .reset, "\(what): the offending socket is closed")
            #expect(closeCode(in: answer) == code, "\(what): \(Array(answer))")
            // The other conversation goes on, and new ones are served.
            bystander.send(Data([0x81, 0x82, 1, 2, 3, 4, UInt8(ascii: "h") ^ 1, UInt8(ascii: "i") ^ 2]))
            let (more, _) = await bystander.read { $0.range(of: Data("bye".utf8)) != nil }
            #expect(more.range(of: Data("bye".utf8)) != nil, "\(what): the bystander's conversation goes on")
            let after = try await talk(webSocketURL(harness.base, "/chat"), ["recv", "send:hi", "recv"])
            #expect(after.hasPrefix("text hello\ntext bye\n"), "\(what): a new conversation after it heard \(after)")
        }
    }

    /// A client that never reads while the upstream floods it: the proxy stops reading the
    /// upstream once the client's socket is full, so 256 MiB sent do not pile up in its memory.
    @Test(.requires(.websockets)) func aClientThatNeverReadsHoldsTheUpstreamBackInsteadOfFillingMemory() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = RecordSettings(cassette: directory.appending(path: "flood.json"), target: try ReverseProxyTarget(upstream.baseURL))
        try await RecordHarness.run(settings: settings, configure: { $0.maxMessageSize = 2 << 20 }) { harness in
            let before = try residentBytes()
            let client = try await upgraded(port: harness.server.port, path: "/flood")
            let flood = Array("flood:256".utf8)
            client.send(Data([0x81, 0x80 | UInt8(flood.count), 0, 0, 0, 0] + flood))
            try await Task.sleep(for: .seconds(3))
            let grown = try residentBytes() - before
            // A sanitizer's allocator keeps freed memory aside and shadows the rest (218 MiB grew under TSan), so
            // only a plain build measures; under a sanitizer the flood still runs, for its races. Without
            // back-pressure a plain build grows by over 500 MiB here. The measure is the whole test process's,
            // and the suites running beside this one count too: 99 MiB grew in a busy CI run with back-pressure
            // working, so the bound sits between that and the flood.
            if ProcessInfo.processInfo.environment["TAPEDECK_SANITIZER"] == nil {
                #expect(grown < 192 << 20, "the proxy holds \(grown >> 20) MiB of a 256 MiB flood its client never reads")
            }
        }
    }

    /// The process's resident memory, from /proc.
    private func residentBytes() throws -> Int {
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        return (Int(statm[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test(.requires(.websockets)) func aConversationUnderWayWhenTheProxyStopsIsRecordedAsFarAsItWent() async throws {
        let upstream = try ExampleUpstream(script: "scripts/ws_upstream.py", arguments: [])
        defer { upstream.stop() }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "cut.json")
        let client = try await RecordHarness.run(settings: RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL))) { harness in
            let client = try await upgraded(port: harness.server.port, path: "/cut")
            client.send(Data([0x81, 0x82, 0, 0, 0, 0] + Array("hi".utf8)))
            _ = await client.read { $0.range(of: Data("echo hi".utf8)) != nil }
            return client
        }
        _ = client
        let messages = try #require(try CassetteCodec().load(file).interactions.first?.websocket)
        #expect(messages.prefix(3).map(\.content) == [.text("welcome /cut"), .text("hi"), .text("echo hi")])
    }
}
