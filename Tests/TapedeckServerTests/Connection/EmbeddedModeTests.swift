import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import TapedeckServer
import TapedeckCore
import Testing

/// The real modes behind the real pipeline, with no socket and no wall clock: the client is an
/// `EmbeddedChannel`, the live service another on the same embedded loop (``EmbeddedUpstream``),
/// and time moves only when the test advances it.
@Suite struct EmbeddedModeTests {
    /// The live service: every connection the proxy opens is an `EmbeddedChannel` the test reads
    /// the request from and writes the answer into. Everything runs on the test's thread.
    final class EmbeddedUpstream: @unchecked Sendable {
        let loop: EmbeddedEventLoop
        private(set) var connections: [EmbeddedChannel] = []

        init(loop: EmbeddedEventLoop) {
            self.loop = loop
        }

        var dialer: UpstreamDialer {
            UpstreamDialer { [self] _, _, _, _, addHandlers in
                let channel = EmbeddedChannel(loop: loop)
                do {
                    try addHandlers(channel.pipeline.syncOperations)
                    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
                } catch {
                    return loop.makeFailedFuture(error)
                }
                connections.append(channel)
                return loop.makeSucceededFuture(channel)
            }
        }

        /// What the proxy sent on the latest connection so far.
        func received() throws -> String {
            try connections.last?.writtenText() ?? ""
        }

        /// Answers on the latest connection.
        func answer(_ text: String) throws {
            try connections.last?.writeInbound(ByteBuffer(string: text))
            loop.run()
        }
    }

    private func client(_ mode: any Mode, on loop: EmbeddedEventLoop) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        try ConnectionServing.configure(channel, mode: mode, configuration: ServerConfiguration(port: 0))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    private func written(_ channel: EmbeddedChannel) throws -> String {
        try channel.writtenText()
    }

    /// A recording into a cassette in a new folder through `upstream`, and a client connection to
    /// it, all on one embedded loop.
    private func recording(timeout: TimeAmount = .seconds(60)) throws
        -> (cassette: URL, loop: EmbeddedEventLoop, upstream: EmbeddedUpstream, mode: RecordingMode, client: EmbeddedChannel) {
        let home = try Fixtures.temporaryDirectory()
        let cassette = home.appending(path: "c.json")
        let loop = EmbeddedEventLoop()
        let upstream = EmbeddedUpstream(loop: loop)
        let settings = RecordSettings(cassette: cassette, target: try ReverseProxyTarget("http://127.0.0.1:9"), upstreamTimeout: timeout)
        let mode = try RecordingMode(settings: settings, configuration: ServerConfiguration(port: 0, authorityHome: home),
                                     authority: CertificateAuthority(home: home), logger: Logger(label: "tapedeck.test"),
                                     dialer: upstream.dialer)
        return (cassette, loop, upstream, mode, try client(mode, on: loop))
    }

    /// Replay of `deck`, with a home of its own.
    private func replaying(_ deck: ReplayDeck) throws -> ReplayMode {
        let home = try Fixtures.temporaryDirectory()
        return ReplayMode(deck: deck, library: nil, configuration: ServerConfiguration(port: 0, authorityHome: home),
                          authority: CertificateAuthority(home: home))
    }

    @Test func aSilentUpstreamGets504AtTheTimeoutAndNothingIsRecorded() async throws {
        let (cassette, loop, upstream, mode, channel) = try recording(timeout: .seconds(5))

        try channel.writeInbound(ByteBuffer(string: "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"))
        #expect(try upstream.received().hasPrefix("GET /slow HTTP/1.1\r\n"))
        loop.advanceTime(by: .milliseconds(4_999))
        #expect(try written(channel) == "", "the upstream still has time")
        loop.advanceTime(by: .milliseconds(1))
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 504 Gateway Timeout\r\n"))
        #expect(answer.contains("Tapedeck-Error: upstream-timeout\r\n"))

        // The connection goes on: the next request reaches the upstream on a new connection and is recorded.
        try channel.writeInbound(ByteBuffer(string: "GET /plaintext?name=After HTTP/1.1\r\nHost: x\r\n\r\n"))
        #expect(upstream.connections.count == 2)
        #expect(try upstream.received().hasPrefix("GET /plaintext?name=After HTTP/1.1\r\n"))
        try upstream.answer("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nHello After!")
        #expect(try written(channel).hasSuffix("\r\n\r\nHello After!"))
        _ = try channel.finish(acceptAlreadyClosed: true)

        try await mode.shutdown()
        let stored = try CassetteCodec().load(cassette)
        #expect(stored.interactions.map(\.request.target.path) == ["/plaintext"])
        #expect(stored.interactions.first?.response.body.text == "Hello After!")
    }

    /// An upstream reached whose answer is not HTTP gets 502 naming what did not parse, not
    /// "cannot reach": it was reached. Nothing is recorded, and the connection goes on.
    @Test func anUpstreamAnswerThatDoesNotParseGets502NamingItAndNothingIsRecorded() async throws {
        let (cassette, _, upstream, mode, channel) = try recording()

        try channel.writeInbound(ByteBuffer(string: "GET /garbled HTTP/1.1\r\nHost: x\r\n\r\n"))
        try upstream.answer("HTTQ/9.9 abc\r\n\r\n")
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"), "\(answer)")
        #expect(answer.contains("the upstream for http://127.0.0.1:9/garbled answered with what is not HTTP/1.1 ("), "\(answer)")
        #expect(!answer.contains("cannot reach"), "\(answer)")
        _ = try channel.finish(acceptAlreadyClosed: true)
        try await mode.shutdown()
        #expect(!FileManager.default.fileExists(atPath: cassette.path), "nothing was recorded")
    }

    @Test func replayedLatencyIsKeptOnTheEventLoopsClock() throws {
        let mode = try replaying(ReplayMode.loadDeck(files: [Fixtures.exampleCassette],
                                                     options: PlaybackOptions(latency: LatencyModel(.fixed(milliseconds: 300)))))
        let loop = EmbeddedEventLoop()
        let channel = try client(mode, on: loop)
        try channel.writeInbound(ByteBuffer(string: "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: api.example.test\r\n\r\n"))
        loop.advanceTime(by: .milliseconds(299))
        #expect(try written(channel) == "")
        loop.advanceTime(by: .milliseconds(1))
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(answer.hasSuffix("Hello Shawn!"))
        _ = try channel.finish(acceptAlreadyClosed: true)
    }

    /// A cassette made in memory is not checked as a loaded one is; its headers still cannot
    /// split the answer, with no validating handler in the pipeline: the head is made legal when
    /// the response is prepared.
    @Test func aReplayedHeaderCannotSplitTheAnswer() throws {
        let hostile = Interaction(
            request: CassetteRequest(method: "GET", url: "http://api.example.test/x"),
            response: CassetteResponse(status: 200, headers: HeaderList([HeaderField(name: "X-A", value: "a\r\nSet-Cookie: evil=1"),
                                                                         HeaderField(name: "Bad Name", value: "b"),
                                                                         HeaderField(name: "X-Nul", value: "c\u{0}d")]),
                                       body: Body(Data("ok".utf8))))
        let mode = try replaying(ReplayDeck(cassettes: [("memory", Cassette(interactions: [hostile]))], options: PlaybackOptions()))
        let channel = try client(mode, on: EmbeddedEventLoop())
        try channel.writeInbound(ByteBuffer(string: "GET /x HTTP/1.1\r\nHost: api.example.test\r\n\r\n"))
        let lines = try written(channel).components(separatedBy: "\r\n")
        #expect(lines.first == "HTTP/1.1 200 OK")
        #expect(lines.contains("X-A: a  Set-Cookie: evil=1"), "CR and LF became spaces: one header, not two")
        #expect(!lines.contains { $0.hasPrefix("Set-Cookie") || $0.hasPrefix("Bad Name") })
        #expect(lines.contains("X-Nul: c d"))
        #expect(lines.last == "ok")
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
