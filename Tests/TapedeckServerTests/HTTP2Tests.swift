import Foundation
import NIOCore
import NIOPosix
@_spi(Internals) import TapedeckCore
import TapedeckServer
import TapedeckTestSupport
import Testing

/// HTTP/2 on the same port as HTTP/1.1 (SPEC section 12): prior knowledge on plain connections,
/// ALPN `h2` inside intercepted tunnels; each stream is one exchange. Real clients: curl.
@Suite struct HTTP2Tests {
    @Test(.requires(.curl, .nghttp)) func curlWithPriorKnowledgeIsServedOverHTTP2OnTheSamePort() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let url = harness.base + "/plaintext?name=Shawn"
            let http2 = try await Curl.run(["--http2-prior-knowledge", "--write-out", "\n%{http_version}", url])
            #expect(http2.text == "Hello Shawn!\n2", "\(http2.error)")
            let http1 = try await Curl.run(["--http1.1", "--write-out", "\n%{http_version}", url])
            #expect(http1.text == "Hello Shawn!\n1.1")
            // Two streams at once on one connection (nghttp, from nghttp2-client), each its own exchange
            // in the journal; a miss is the 599 diagnosis.
            let both = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["nghttp", url, harness.base + "/plaintext?name=Sean"])
            #expect(both.status == 0 && both.text.contains("Hello Shawn!") && both.text.contains("\"reason\" : \"no-match\""), "\(both.text) \(both.error)")
            let health = try await Curl.run(["--http2-prior-knowledge", harness.base + "/__tapedeck/health"])
            #expect(health.text.contains("\"status\" : \"ok\""))
            #expect(harness.responder.journal.document().entries.count == 4)
        }
    }

    @Test(.requires(.curl)) func sessionsAndProxyAuthenticationWorkPerStream() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette],
                                    configure: { $0.proxyCredentials = ProxyCredentials(user: "u", password: "p") }) { (harness: ReplayHarness) async throws in
            let url = harness.base + "/plaintext?name=Shawn"
            let refused = try await Curl.run(["--http2-prior-knowledge", "--write-out", "%{http_code} %{http_version}", "-o", "/dev/null", url])
            #expect(refused.text == "407 2")
            let admitted = try await Curl.run(["--http2-prior-knowledge", "-H", "Proxy-Authorization: Basic dTpw", url])
            #expect(admitted.text == "Hello Shawn!")
        }
    }

    @Test(.requires(.curl)) func curlNegotiatesH2InsideTheInterceptedTunnel() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Fixtures.secureCassette, named: "secure.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let caFile = directory.appending(path: "ca.pem")
            _ = try await Curl.run(["--output", caFile.path, harness.base + "/__tapedeck/ca.pem"])
            let result = try await Curl.run(["--http2", "--proxy", harness.base, "--cacert", caFile.path, "--write-out", "\n%{http_version}",
                                             "https://secure.example.test/hello?lang=en"])
            #expect(result.text == "hello over tls\n2", "\(result.error)")
            let http1 = try await Curl.run(["--http1.1", "--proxy", harness.base, "--cacert", caFile.path, "--write-out", "\n%{http_version}",
                                            "https://secure.example.test/hello?lang=en"])
            #expect(http1.text == "hello over tls\n1.1")
        }
    }

    /// The test upstream speaks only HTTP/1.1: the HTTP/2 client's requests go to it over HTTP/1.1
    /// (SPEC 12's fallback), the first after the upstream refused the preface, the second at once.
    @Test(.requires(.curl)) func theRecordingProxyTakesHTTP2ClientsAndForwardsToAnHTTP1UpstreamOverHTTP1() async throws {
        let recorded = try await RecordHarness.recordFromTestUpstream { (harness: RecordHarness, upstream: TestUpstream) async throws in
            for _ in 0..<2 {
                let answer = try await Curl.run(["--http2-prior-knowledge", "--write-out", "\n%{http_version}", harness.base + "/hello"])
                #expect(answer.status == 0, "\(answer.error)")
                #expect(answer.text.hasSuffix("\n2"))
            }
            try await waitUntil { harness.responder.recorder.interactionCount == 2 }
        }
        #expect(recorded.cassette.interactions.map(\.httpVersion) == ["1.1", "1.1"])
        #expect(recorded.cassette.interactions.first?.request.url.hasSuffix("/hello") == true)
    }

    /// Streams in flight together on one HTTP/2 connection, to an upstream that speaks only
    /// HTTP/1.1, each get an upstream connection of their own, and each is answered and recorded.
    /// Before, a client connection kept one upstream connection and closed it when the next stream
    /// opened another: the streams still waiting on it got 502 and were not recorded.
    @Test(.requires(.nghttp)) func streamsInFlightToAnHTTP1UpstreamEachGetAConnectionOfTheirOwn() async throws {
        let streams = 4
        let recorded = try await RecordHarness.recordFromTestUpstream { (harness: RecordHarness, upstream: TestUpstream) async throws in
            // nghttp sends its URLs as streams of one connection; /held answers when released.
            let urls = (0..<streams).map { "\(harness.base)/held?n=\($0)" }
            async let answers = Subprocess.run(executable: "/usr/bin/env", arguments: ["nghttp"] + urls)
            try await waitUntil { upstream.held.withLock { $0.count } == streams }
            upstream.releaseHeld()
            let answered = try await answers
            #expect(answered.text == String(repeating: "held answer", count: streams), "\(answered.text) \(answered.error)")
            try await waitUntil { harness.responder.recorder.interactionCount == streams }
        }
        #expect(Set(recorded.cassette.interactions.map { $0.request.url }).count == streams)
        #expect(recorded.cassette.interactions.allSatisfy { $0.response.status == 200 && $0.httpVersion == "1.1" })
    }

    /// Streams a client resets as it opens them (a rapid reset) cost the upstream nothing but the
    /// one HTTP/2 connection their client connection shares: a request whose stream was reset by
    /// the time a connection is to be opened for it opens none, so a client's abuse is not passed
    /// on to a shared upstream.
    @Test func streamsResetAsTheyOpenCostTheUpstreamNoConnection() async throws {
        _ = try await RecordHarness.recordFromTestUpstream { (harness: RecordHarness, upstream: TestUpstream) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            var frames = HTTP2Frames.greeting
            for index in 0..<50 {
                let stream = UInt32(2 * index + 1)
                frames += HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: stream, HTTP2Frames.requestBlock(get: true, path: "/plaintext?name=R\(index)"))
                frames += HTTP2Frames.frame(type: 0x03, flags: 0, stream: stream, Data([0, 0, 0, 0x08]))  // RST_STREAM CANCEL
            }
            socket.send(frames)
            socket.send(HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: 101, HTTP2Frames.requestBlock(get: true, path: "/plaintext?name=Last")))
            let answered = await socket.read { $0.range(of: Data("Hello Last!".utf8)) != nil }
            #expect(answered.data.range(of: Data("Hello Last!".utf8)) != nil)
            // The last request alone reached the upstream: over HTTP/2 first, then HTTP/1.1 (it speaks only that).
            #expect(upstream.acceptedConnections.withLock { $0 } <= 2, "\(upstream.acceptedConnections.withLock { $0 }) connections")
            #expect(upstream.requests.withLock { $0 } == 1)
        }
    }

    /// `--max-upstream-connections` bounds the connections open to one upstream over all clients:
    /// a stream that would need one more is answered 503 at once, the others are served.
    @Test func streamsPastTheUpstreamConnectionLimitGet503() async throws {
        let streams = 6
        _ = try await RecordHarness.recordFromTestUpstream(settings: { cassette, upstream in
            var settings = RecordSettings(cassette: cassette, target: upstream.target)
            settings.maxUpstreamConnections = 2
            return settings
        }) { (harness: RecordHarness, upstream: TestUpstream) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            // A first request finds that the upstream speaks only HTTP/1.1; its connection stays kept.
            socket.send(HTTP2Frames.greeting
                + HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: 1, HTTP2Frames.requestBlock(get: true, path: "/plaintext?name=First")))
            _ = await socket.read { $0.range(of: Data("Hello First!".utf8)) != nil }
            var frames = Data()
            for index in 0..<streams {
                frames += HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: UInt32(2 * index + 3),
                                            HTTP2Frames.requestBlock(get: true, path: "/held?n=\(index)"))
            }
            socket.send(frames)
            let refused = await socket.read { $0.occurrences(of: "--max-upstream-connections") == streams - 2 }
            #expect(refused.data.occurrences(of: "--max-upstream-connections") == streams - 2, "the others are refused at once")
            #expect(upstream.openConnections.withLock { $0 } <= 2)
            try await waitUntil { upstream.held.withLock { $0.count } == 2 }
            upstream.releaseHeld()
            let answered = await socket.read { $0.occurrences(of: "held answer") == 2 }
            #expect(answered.data.occurrences(of: "held answer") == 2)
        }
    }

    /// Once a burst of streams to an upstream without HTTP/2 is answered, the client connection
    /// keeps six (`ConnectionScope.maxIdleUpstreamsPerOrigin`) of the upstream connections it opened
    /// for the next burst and closes the others, while it stays open. Before, it kept one per
    /// stream of the burst, up to a hundred, until the client left.
    @Test func aBurstOfStreamsLeavesAFewIdleUpstreamConnectionsNotOnePerStream() async throws {
        let streams = 10
        let kept = 6
        let recorded = try await RecordHarness.recordFromTestUpstream { (harness: RecordHarness, upstream: TestUpstream) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            // GET /held?n=… on streams 1, 3, 5, … (END_STREAM | END_HEADERS), all in flight at once.
            var frames = HTTP2Frames.greeting
            for index in 0..<streams {
                frames += HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: UInt32(2 * index + 1),
                                            HTTP2Frames.requestBlock(get: true, path: "/held?n=\(index)"))
            }
            socket.send(frames)
            try await waitUntil { upstream.held.withLock { $0.count } == streams }
            #expect(upstream.openConnections.withLock { $0 } == streams)
            upstream.releaseHeld()
            let answered = await socket.read { $0.occurrences(of: "held answer") == streams }
            #expect(answered.data.occurrences(of: "held answer") == streams)
            try await waitUntil { upstream.openConnections.withLock { $0 } == kept }
            #expect(upstream.openConnections.withLock { $0 } == kept, "the client connection is still open")
            // The next stream goes on one of those kept.
            socket.send(HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: UInt32(2 * streams + 1),
                                          HTTP2Frames.requestBlock(get: true, path: "/plaintext?name=Again")))
            let again = await socket.read { $0.range(of: Data("Hello Again!".utf8)) != nil }
            #expect(again.data.range(of: Data("Hello Again!".utf8)) != nil)
            #expect(upstream.openConnections.withLock { $0 } == kept)
            try await waitUntil { harness.responder.recorder.interactionCount == streams + 1 }
        }
        #expect(recorded.cassette.interactions.count == streams + 1)
    }

    /// A stream the client resets while its request waits on an upstream that speaks only HTTP/1.1
    /// ends its exchange at once, closing that upstream connection, and the client's connection
    /// goes on. Before, the exchange waited for the upstream's answer, read for nobody.
    @Test func aResetStreamToAnHTTP1UpstreamEndsItsExchangeAndTheConnectionGoesOn() async throws {
        // An upstream timeout far past the wait below, so only the reset can end the exchange in time.
        let patient = { (cassette: URL, upstream: TestUpstream) in
            RecordSettings(cassette: cassette, target: upstream.target, upstreamTimeout: .seconds(600))
        }
        let recorded = try await RecordHarness.recordFromTestUpstream(settings: patient) { (harness: RecordHarness, upstream: TestUpstream) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            // GET /held on stream 1 (END_STREAM | END_HEADERS), answered only when released.
            socket.send(HTTP2Frames.greeting + HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: 1, HTTP2Frames.requestBlock(get: true, path: "/held")))
            try await waitUntil { upstream.held.withLock { $0.count } == 1 }
            #expect(harness.responder.exchangesUnderWay == 1)
            // RST_STREAM (CANCEL) on stream 1, the connection kept.
            socket.send(HTTP2Frames.frame(type: 0x03, flags: 0, stream: 1, Data([0, 0, 0, 8])))
            try await waitUntil { harness.responder.exchangesUnderWay == 0 }
            #expect(harness.responder.exchangesUnderWay == 0, "the reset stream's exchange ended with it")
            socket.send(HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: 3, HTTP2Frames.requestBlock(get: true, path: "/plaintext?name=After")))
            let answered = await socket.read { $0.range(of: Data("Hello After!".utf8)) != nil }
            #expect(answered.data.range(of: Data("Hello After!".utf8)) != nil, "the connection goes on")
            upstream.releaseHeld()
            try await waitUntil { harness.responder.recorder.interactionCount == 1 }
        }
        #expect(recorded.cassette.interactions.map { $0.request.url.hasSuffix("/plaintext?name=After") } == [true])
    }

    /// Python's `http.server` (the example upstream) takes the HTTP/2 preface for an HTTP/0.9
    /// request and answers with a bare error page, no status line: it speaks no HTTP/2 either,
    /// so the HTTP/2 client's requests go to it over HTTP/1.1, and are recorded.
    @Test(.requires(.curl, .python3)) func anUpstreamAnsweringThePrefaceWithABareErrorPageIsReachedOverHTTP1() async throws {
        let recorded = try await RecordHarness.recordFromExampleUpstream { harness in
            for _ in 0..<2 {
                let answer = try await Curl.run(["--http2-prior-knowledge", "--write-out", "\n%{http_version}",
                                                 harness.base + "/plaintext?name=Shawn"])
                #expect(answer.text == "Hello Shawn!\n2", "\(answer.text) \(answer.error)")
            }
            try await waitUntil { harness.responder.recorder.interactionCount == 2 }
        }
        let interactions = try #require(recorded).interactions
        #expect(interactions.map(\.response.status) == [200, 200])
        #expect(interactions.map(\.httpVersion) == ["1.1", "1.1"])
    }

    @Test(.requires(.curl)) func aBrokenHTTP2ConnectionGetsGoawayAndTheServerServesOthers() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let port = try #require(harness.server.url.split(separator: ":").last.flatMap { Int($0) })
            let socket = try RawSocket(port: port, timeout: 10)
            // The preface, then a frame of an unknown length on stream 0 that is no SETTINGS: a protocol error.
            var bytes = Data(HTTPVersionSnifferPreface.bytes)
            bytes.append(contentsOf: [0x00, 0x00, 0x04, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0xDE, 0xAD, 0xBE, 0xEF])
            socket.send(bytes)
            let answer = await socket.read()
            #expect(Self.frameTypes(in: answer.data).contains(0x07), "a GOAWAY frame")
            #expect(answer.ending != .timedOut, "the connection was closed")
            let healthy = try await Curl.run(["--http2-prior-knowledge", harness.base + "/plaintext?name=Shawn"])
            #expect(healthy.text == "Hello Shawn!")
        }
    }

    /// The types of the HTTP/2 frames in a server's bytes.
    private static func frameTypes(in data: Data) -> [UInt8] {
        var types: [UInt8] = []
        var offset = data.startIndex
        while data.endIndex - offset >= 9 {
            let length = Int(data[offset]) << 16 | Int(data[offset + 1]) << 8 | Int(data[offset + 2])
            types.append(data[offset + 3])
            offset += 9 + length
        }
        return types
    }
}

/// The HTTP/2 connection preface, as a client sends it.
enum HTTPVersionSnifferPreface {
    static let bytes = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
}
