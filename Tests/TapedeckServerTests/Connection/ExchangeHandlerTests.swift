import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import TapedeckServer
import Testing

/// The server's connection pipeline as built for a socket (``ServerPipeline``), driven through
/// `EmbeddedChannel`: bytes in, bytes out, no socket, no clock but the embedded one.
@Suite struct ExchangeHandlerTests {
    /// A responder that answers at once with the path it was asked for, or keeps the sink to
    /// answer later; it notes every request and `CONNECT`. EmbeddedChannel runs everything on
    /// the test's thread.
    final class TestResponder: Responder, @unchecked Sendable {
        var answersAtOnce = true
        /// Whether answers are streamed without a length (as a recorded event stream is).
        var answersWithoutLength = false
        var plan = ConnectPlan.refuse(Refusal(.forbidden, "no tunnels to this host"))
        private(set) var requests: [IncomingRequest] = []
        private(set) var connects: [String] = []
        private var held: [ResponseSink] = []

        func respond(to request: IncomingRequest, sink: ResponseSink) {
            requests.append(request)
            if answersAtOnce { answer(request, sink) } else { held.append(sink) }
        }

        func connectPlan(host: String, port: Int) -> ConnectPlan {
            connects.append("\(host):\(port)")
            return plan
        }

        /// Answers the oldest request still waiting.
        func answerNext() {
            let sink = held.removeFirst()
            answer(requests[requests.count - held.count - 1], sink)
        }

        /// Answers the oldest request still waiting twice, as a responder whose upstream failed after answering might.
        func answerNextTwice() -> ResponseSink {
            let request = requests[requests.count - held.count]
            let sink = held.removeFirst()
            answer(request, sink)
            sink.send(HTTPResponse(status: .badGateway), body: ByteBuffer(string: "a second answer"))
            return sink
        }

        private func answer(_ request: IncomingRequest, _ sink: ResponseSink) {
            let body = ByteBuffer(string: "answer to \(request.target) (\(request.body.readableBytes) bytes)")
            guard answersWithoutLength else { return sink.send(HTTPResponse(status: .ok), body: body) }
            sink.streamHead(HTTPResponseHead(version: .http1_1, status: .ok))
            _ = sink.streamBody(body)
            _ = sink.end()
        }
    }

    private func connection(_ responder: TestResponder, maxBodySize: Int = 1024,
                            proxyCredentials: ProxyCredentials? = nil) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        var configuration = ServerConfiguration(maxBodySize: maxBodySize, idleTimeout: .seconds(60))
        configuration.proxyCredentials = proxyCredentials
        try ServerPipeline.configure(channel: channel, front: responder, configuration: configuration)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    private func written(_ channel: EmbeddedChannel) throws -> String {
        try channel.writtenText()
    }

    private func send(_ text: String, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    @Test func keepAliveServesOneRequestAfterAnother() throws {
        let responder = TestResponder()
        let channel = try connection(responder)
        try send("GET /one HTTP/1.1\r\nHost: a\r\n\r\n", to: channel)
        let first = try written(channel)
        #expect(first.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(first.hasSuffix("answer to /one (0 bytes)"))
        #expect(!first.lowercased().contains("connection: close"))
        try send("POST /two HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc", to: channel)
        #expect(try written(channel).hasSuffix("answer to /two (3 bytes)"))
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test func http10AndConnectionCloseEndTheConnectionAfterTheAnswer() throws {
        for request in ["GET /old HTTP/1.0\r\n\r\n", "GET /last HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"] {
            let channel = try connection(TestResponder())
            try send(request, to: channel)
            let answer = try written(channel)
            #expect(answer.contains("Connection: close\r\n"), "\(request)")
            #expect(answer.contains("answer to /"))
            #expect(!channel.isActive, "\(request)")
        }
    }

    /// HTTP/1.0 has no chunked framing (RFC 9112 section 6.1): an answer of unknown length goes to
    /// an HTTP/1.0 client as HTTP/1.0, its end the connection's close, even when the client asked
    /// to keep the connection. HTTP/1.1 gets it in chunks and keeps the connection.
    @Test func anAnswerWithoutLengthEndsWithTheConnectionForHTTP10() throws {
        let responder = TestResponder()
        responder.answersWithoutLength = true
        let old = try connection(responder)
        try send("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", to: old)
        let answer = try written(old)
        #expect(answer.hasPrefix("HTTP/1.0 200 OK\r\n") && answer.contains("Connection: close\r\n"), "\(answer)")
        #expect(!answer.lowercased().contains("transfer-encoding") && answer.hasSuffix("\r\n\r\nanswer to /old (0 bytes)"), "\(answer)")
        #expect(!old.isActive)

        let current = try connection(responder)
        try send("GET /new HTTP/1.1\r\nHost: a\r\n\r\n", to: current)
        let chunked = try written(current)
        #expect(chunked.hasPrefix("HTTP/1.1 200 OK\r\n") && chunked.contains("transfer-encoding: chunked\r\n"), "\(chunked)")
        #expect(current.isActive)
        _ = try current.finish()
    }

    @Test func pipelinedRequestsWaitForTheResponseBeforeThem() throws {
        let responder = TestResponder()
        responder.answersAtOnce = false
        let channel = try connection(responder)
        try send("GET /first HTTP/1.1\r\nHost: a\r\n\r\nGET /second HTTP/1.1\r\nHost: a\r\n\r\n", to: channel)
        #expect(responder.requests.map(\.target) == ["/first"])
        #expect(try written(channel).isEmpty)

        responder.answerNext()
        #expect(responder.requests.map(\.target) == ["/first", "/second"])
        let first = try written(channel)
        #expect(first.hasSuffix("answer to /first (0 bytes)"))
        #expect(!first.contains("/second"))

        responder.answerNext()
        #expect(try written(channel).hasSuffix("answer to /second (0 bytes)"))
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test func aDeclaredBodyOverTheLimitGets413AtOnceAndNoContinue() throws {
        let responder = TestResponder()
        let channel = try connection(responder, maxBodySize: 10)
        try send("PUT /big HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n", to: channel)
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
        #expect(!answer.contains("100 Continue"))
        #expect(answer.contains("over the limit of 10 bytes (--max-body)"))
        #expect(responder.requests.isEmpty)
        #expect(!channel.isActive)
    }

    @Test func aChunkedBodyOverTheLimitGets413() throws {
        let responder = TestResponder()
        let channel = try connection(responder, maxBodySize: 10)
        try send("POST /big HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n8\r\n89abcdef\r\n0\r\n\r\n", to: channel)
        #expect(try written(channel).hasPrefix("HTTP/1.1 413 Payload Too Large\r\n"))
        #expect(responder.requests.isEmpty)
        #expect(!channel.isActive)
    }

    @Test func expectContinueGets100BeforeTheBody() throws {
        let responder = TestResponder()
        let channel = try connection(responder)
        try send("PUT /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n", to: channel)
        #expect(try written(channel) == "HTTP/1.1 100 Continue\r\n\r\n")
        try send("data", to: channel)
        #expect(try written(channel).hasSuffix("answer to /upload (4 bytes)"))
        _ = try channel.finish()
    }

    @Test func headersOverTheLimitGet431AndTheConnectionCloses() throws {
        let channel = try connection(TestResponder())
        let huge = String(repeating: "x", count: 70 * 1024)
        try? send("GET / HTTP/1.1\r\nHost: a\r\nX-Huge: \(huge)\r\n\r\n", to: channel)
        #expect(try written(channel).hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
        #expect(!channel.isActive)
    }

    @Test func aRequestThatDoesNotParseGets400AndTheConnectionCloses() throws {
        let responder = TestResponder()
        let channel = try connection(responder)
        try? send("GET / HTTP/1.1\r\nHost a\r\n\r\n", to: channel)
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(answer.contains("malformed request"))
        #expect(responder.requests.isEmpty)
        #expect(!channel.isActive)
    }

    /// RFC 9112 section 3.2, as a real server answers: HTTP/1.1 needs exactly one Host (HTTP/1.0 none).
    @Test(arguments: [("Host: a\r\nHost: b\r\n", "more than one Host header"), ("", "an HTTP/1.1 request needs a Host header")])
    func aRequestWithTwoHostsOrNoneGets400AndTheConnectionCloses(hosts: String, reason: String) throws {
        let responder = TestResponder()
        let channel = try connection(responder)
        try send("GET / HTTP/1.1\r\n\(hosts)\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n", to: channel)
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(answer.contains(reason), "\(answer)")
        #expect(responder.requests.isEmpty, "neither the request nor the one behind it reaches the modes")
        #expect(!channel.isActive)
    }

    /// A body in a transfer coding besides chunked would reach the modes still coded, and be matched,
    /// recorded and forwarded so: refused with 501 (RFC 9112 section 6.1), as nginx does.
    @Test func aTransferCodingOtherThanChunkedGets501AndTheConnectionCloses() throws {
        let responder = TestResponder()
        let channel = try connection(responder)
        try send("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", to: channel)
        let answer = try written(channel)
        #expect(answer.hasPrefix("HTTP/1.1 501 Not Implemented\r\n"), "\(answer)")
        #expect(answer.contains("the transfer coding gzip is not implemented (only chunked is)"), "\(answer)")
        #expect(responder.requests.isEmpty)
        #expect(!channel.isActive)
    }

    /// A head trickled a line at a time keeps the idle timeout from firing, but not the head's
    /// deadline, which runs again from each answer's end; an answer under way is never cut by it.
    @Test func aTrickledHeadIsClosedAtTheHeaderTimeout() throws {
        let responder = TestResponder()
        let channel = try connection(responder)
        try send("GET /one HTTP/1.1\r\nHost: a\r\n\r\n", to: channel)
        #expect(try written(channel).hasSuffix("answer to /one (0 bytes)"))
        try send("GET /two HTTP/1.1\r\n", to: channel)
        for _ in 0..<5 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(11))
            try send("X-Slow: a\r\n", to: channel)
        }
        #expect(channel.isActive, "55 s after the last answer")
        channel.embeddedEventLoop.advanceTime(by: .seconds(6))
        #expect(!channel.isActive, "61 s after the last answer, the head still unfinished")
        #expect(responder.requests.map(\.target) == ["/one"], "the unfinished request reached no one")

        responder.answersAtOnce = false
        let slow = try connection(responder)
        try send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n", to: slow)
        slow.embeddedEventLoop.advanceTime(by: .seconds(120))
        #expect(slow.isActive, "a request being answered has no head to wait for")
        _ = try slow.finish(acceptAlreadyClosed: true)
    }

    /// A client that takes nothing of its answer for the send timeout loses its connection; one
    /// that starts taking again in time keeps it.
    @Test func aClientThatStopsReadingIsClosedAtTheSendTimeout() throws {
        let responder = TestResponder()
        responder.answersAtOnce = false
        let channel = try connection(responder)
        try send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n", to: channel)
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(50))
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(50))
        #expect(channel.isActive, "it took something 50 s in")
        channel.embeddedEventLoop.advanceTime(by: .seconds(11))
        #expect(!channel.isActive, "then nothing for 61 s")
    }

    @Test func aSilentConnectionClosesAfterTheIdleTimeoutButNotMidResponse() throws {
        let quiet = try connection(TestResponder())
        quiet.embeddedEventLoop.advanceTime(by: .seconds(59))
        #expect(quiet.isActive)
        quiet.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!quiet.isActive)

        let responder = TestResponder()
        responder.answersAtOnce = false
        let busy = try connection(responder)
        try send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n", to: busy)
        busy.embeddedEventLoop.advanceTime(by: .seconds(120))
        #expect(busy.isActive)
        responder.answerNext()
        #expect(try written(busy).hasSuffix("answer to /slow (0 bytes)"))
        _ = try busy.finish()
    }

    @Test func whenTheServerStopsAnIdleConnectionClosesAndABusyOneFinishesItsAnswerFirst() throws {
        let idle = try connection(TestResponder())
        idle.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(!idle.isActive)

        let responder = TestResponder()
        responder.answersAtOnce = false
        let busy = try connection(responder)
        try send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\nGET /behind HTTP/1.1\r\nHost: a\r\n\r\n", to: busy)
        busy.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(busy.isActive, "the answer under way is finished first")
        responder.answerNext()
        let answer = try written(busy)
        #expect(answer.contains("Connection: close\r\n"))
        #expect(answer.hasSuffix("answer to /slow (0 bytes)"))
        #expect(responder.requests.map(\.target) == ["/slow"], "what was pipelined behind it is not taken up")
        #expect(!busy.isActive)
    }

    @Test func connectIsPlannedByTheResponderAndRefusedWithItsStatus() throws {
        let responder = TestResponder()
        let channel = try connection(responder)
        try send("CONNECT api.test:443 HTTP/1.1\r\nHost: api.test:443\r\n\r\n", to: channel)
        #expect(responder.connects == ["api.test:443"])
        let answer = try written(channel)
        // SwiftNIO's encoder sends no body in any answer to a CONNECT, so the reason is not on the wire.
        #expect(answer.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
        #expect(answer.contains("Connection: close\r\n"))
        #expect(!channel.isActive)
    }

    @Test func connectWithoutAPortIs400() throws {
        let responder = TestResponder()
        let channel = try connection(responder)
        try send("CONNECT api.test HTTP/1.1\r\nHost: api.test\r\n\r\n", to: channel)
        #expect(try written(channel).hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(responder.connects.isEmpty)
    }

    @Test func anInterceptedConnectIsAnswered200AndTheConnectionBecomesATunnel() throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let responder = TestResponder()
        responder.plan = .intercept(try CertificateAuthority(home: home).serverContext(for: "api.test"))
        let channel = try connection(responder)
        try send("CONNECT api.test:443 HTTP/1.1\r\nHost: api.test:443\r\n\r\n", to: channel)
        #expect(try written(channel) == "HTTP/1.1 200 OK\r\n\r\n")
        channel.embeddedEventLoop.run()
        // The HTTP handlers gave way to the tunnel sniffer, which waits for the client's first bytes.
        #expect(throws: Never.self) { try channel.pipeline.syncOperations.handler(type: TunnelSniffer.self) }
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: ExchangeHandler.self) }
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    // MARK: one answer per request, in request order

    @Test func anUnauthorizedRequestPipelinedBehindAnAuthorizedOneIsAnsweredAfterIt() throws {
        let responder = TestResponder()
        responder.answersAtOnce = false
        let channel = try connection(responder, proxyCredentials: ProxyCredentials(user: "u", password: "p"))
        try send("GET /first HTTP/1.1\r\nHost: a\r\nProxy-Authorization: Basic dTpw\r\n\r\n"
                 + "GET /second HTTP/1.1\r\nHost: a\r\n\r\n", to: channel)
        #expect(try written(channel).isEmpty, "nothing may overtake the first answer")
        responder.answerNext()
        let answers = try written(channel)
        let ok = try #require(answers.range(of: "HTTP/1.1 200 OK"))
        let challenge = try #require(answers.range(of: "HTTP/1.1 407 Proxy Authentication Required"))
        #expect(ok.lowerBound < challenge.lowerBound)
        #expect(answers.contains("Proxy-Authenticate: Basic realm=\"tapedeck\""))
        #expect(responder.requests.map(\.target) == ["/first"])
        #expect(responder.requests[0].head.headerFields[.proxyAuthorization] == nil, "the credentials are never passed on")
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test func aMalformedRequestPipelinedBehindAValidOneWaitsForItsAnswer() throws {
        let responder = TestResponder()
        responder.answersAtOnce = false
        let channel = try connection(responder)
        try? send("GET /first HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost a\r\n\r\n", to: channel)
        #expect(channel.isActive, "the connection stays until the first answer is out")
        responder.answerNext()
        let answers = try written(channel)
        let first = try #require(answers.range(of: "answer to /first (0 bytes)"))
        let refusal = try #require(answers.range(of: "HTTP/1.1 400 Bad Request"))
        #expect(first.upperBound <= refusal.lowerBound)
        #expect(!channel.isActive)
    }

    /// Counts the reads that reach the socket's end of the pipeline.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        private(set) var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    /// A gRPC call on an HTTP/2 stream (here its translated parts, as SwiftNIO's HTTP/2 codec
    /// gives them) is read on while it is answered, but not while its client does not take the
    /// answers (flow control); when the stream closes, its body still arriving fails.
    @Test func aStreamedCallIsNotReadFromWhileItsClientDoesNotTakeItsAnswers() throws {
        let responder = TestResponder()
        responder.answersAtOnce = false
        let reads = ReadCounter()
        let channel = EmbeddedChannel()
        let configuration = ServerConfiguration(maxBodySize: 1024, idleTimeout: .seconds(60))
        try channel.pipeline.syncOperations.addHandlers([reads, ExchangeHandler(front: responder, configuration: configuration, tunnelOrigin: nil)])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let call = HTTPRequestHead(version: HTTPVersion(major: 2, minor: 0), method: .POST, uri: "/demo.Greeter/Chat",
                                   headers: ["host": "a", "content-type": "application/grpc"])
        try channel.writeInbound(HTTPServerRequestPart.head(call))
        #expect(responder.requests.count == 1, "handed on before its body")
        let before = reads.reads
        channel.read()
        #expect(reads.reads == before + 1, "read on while it is answered")

        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.read()
        #expect(reads.reads == before + 1, "held while the client does not take its answers")
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(reads.reads == before + 2, "passed on once it takes them again")

        var cut = false
        responder.requests[0].bodyStream?.read(with: RequestBodyStream.Reader(part: { _ in }, end: {}, failure: { cut = true }))
        try channel.close().wait()
        #expect(cut)
    }

    @Test func aRequestGetsOneAnswerEvenWhenTheResponderSendsTwo() throws {
        let responder = TestResponder()
        responder.answersAtOnce = false
        let channel = try connection(responder)
        try send("GET /first HTTP/1.1\r\nHost: a\r\n\r\nGET /second HTTP/1.1\r\nHost: a\r\n\r\n", to: channel)
        let stale = responder.answerNextTwice()
        let first = try written(channel)
        #expect(first.components(separatedBy: "HTTP/1.1 ").count == 2, "one status line: \(first)")
        #expect(!first.contains("a second answer"))
        // The first answer's sink cannot write into the second's.
        stale.send(HTTPResponse(status: .gatewayTimeout), body: ByteBuffer(string: "late"))
        responder.answerNext()
        let second = try written(channel)
        #expect(second.hasPrefix("HTTP/1.1 200 OK") && second.hasSuffix("answer to /second (0 bytes)"))
        #expect(!second.contains("late"))
        _ = try channel.finish()
    }

    @Test func bytesSentRightAfterAConnectGoIntoTheTunnel() throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let responder = TestResponder()
        responder.plan = .intercept(try CertificateAuthority(home: home).serverContext(for: "api.test"))
        let channel = try connection(responder)
        // A plain-HTTP request inside the tunnel, in the same write as the CONNECT.
        try send("CONNECT api.test:80 HTTP/1.1\r\nHost: api.test:80\r\n\r\nGET /inside HTTP/1.1\r\nHost: api.test\r\n\r\n", to: channel)
        let answers = try written(channel)
        #expect(answers.hasPrefix("HTTP/1.1 200 OK\r\n\r\n"))
        #expect(answers.hasSuffix("answer to /inside (0 bytes)"), "\(answers)")
        #expect(responder.requests.map(\.url) == ["http://api.test/inside"])
        _ = try channel.finish()
    }
}
