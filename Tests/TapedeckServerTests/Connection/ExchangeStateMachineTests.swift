import NIOCore
import NIOHTTP1
@testable import TapedeckServer
import Testing

/// The connection's decisions as values, without a channel: each event and the action it gives.
@Suite struct ExchangeStateMachineTests {
    /// The machine behind a reference, so each event can be checked inside `#expect`.
    final class Driver {
        private var machine: ExchangeStateMachine
        init(maxBodySize: Int, isTunnel: Bool, proxyAuthentication: ProxyAuthentication? = nil) {
            machine = ExchangeStateMachine(maxBodySize: maxBodySize, isTunnel: isTunnel, proxyAuthentication: proxyAuthentication)
        }
        var answer: Int { machine.answer }
        func accepts(_ number: Int) -> Bool { machine.accepts(number) }
        func headWillBeWritten(for number: Int, hasLength: Bool = true) -> ExchangeStateMachine.HeadFraming? {
            machine.headWillBeWritten(for: number, hasLength: hasLength)
        }
        var isResponding: Bool { machine.isResponding }
        var closesAfterResponse: Bool { machine.closesAfterResponse }
        func received(_ part: HTTPServerRequestPart, now: NIODeadline) -> ExchangeStateMachine.PartAction { machine.received(part, now: now) }
        func takeWaitingPart() -> ExchangeStateMachine.PartAction? { machine.takeWaitingPart(now: .uptimeNanoseconds(1_000)) }
        func readRequested() -> Bool { machine.readRequested() }
        func releaseHeldRead() -> Bool { machine.releaseHeldRead() }
        func responseEnded() -> ExchangeStateMachine.EndAction { machine.responseEnded() }
        func tunnelOpened() { machine.tunnelOpened() }
        func idleTimeoutFired() -> Bool { machine.idleTimeoutFired() }
        func decodingFailed(_ error: any Error) -> ExchangeStateMachine.PartAction? { machine.decodingFailed(error) }
        func quiesce() -> Bool { machine.quiesce() }
        func writabilityChanged(isWritable: Bool) -> Bool { machine.writabilityChanged(isWritable: isWritable) }
        func connectionClosed() -> Bool { machine.connectionClosed() }
        func bodyNotKept(_ reason: String) -> ExchangeStateMachine.PartAction { machine.bodyNotKept(reason) }
        var requestBeingReceived: (head: HTTPRequestHead, arrival: NIODeadline)? { machine.requestBeingReceived }
        func handOnUpload() { machine.handOnUpload() }
        var receivesBody: Bool { machine.receivesBody }
        func bodyTimedOut() -> ExchangeStateMachine.PartAction { machine.bodyTimedOut(after: .seconds(60)) }
    }

    private let now = NIODeadline.uptimeNanoseconds(1_000)

    private func head(_ method: HTTPMethod = .GET, _ uri: String = "/", version: HTTPVersion = .http1_1,
                      _ headers: [(String, String)] = []) -> HTTPRequestHead {
        HTTPRequestHead(version: version, method: method, uri: uri, headers: HTTPHeaders(headers))
    }

    @Test func aWholeRequestIsHandedOnAfterItsBodyIsCollected() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        let post = head(.POST, "/items", [("Content-Length", "6")])
        #expect(machine.received(.head(post), now: now) == .none)
        #expect(machine.received(.body(ByteBuffer(string: "abc")), now: now) == .collect(ByteBuffer(string: "abc")))
        #expect(machine.received(.body(ByteBuffer(string: "def")), now: now) == .collect(ByteBuffer(string: "def")))
        #expect(machine.received(.end(nil), now: now) == .respond(post, arrival: now))
        #expect(machine.isResponding)
        #expect(machine.responseEnded() == .keepAlive)
        #expect(!machine.isResponding)
    }

    @Test func aRequestThatDoesNotKeepAliveClosesAfterItsAnswer() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        _ = machine.received(.head(head(version: .http1_0)), now: now)
        _ = machine.received(.end(nil), now: now)
        #expect(machine.closesAfterResponse)
        #expect(machine.responseEnded() == .close)
    }

    @Test func anHTTP10AnswerWithoutLengthEndsWithTheConnection() {
        let keepAlive = head(version: .http1_0, [("Connection", "keep-alive")])
        let measured = Driver(maxBodySize: 100, isTunnel: false)
        _ = measured.received(.head(keepAlive), now: now)
        _ = measured.received(.end(nil), now: now)
        #expect(measured.headWillBeWritten(for: measured.answer, hasLength: true) == .asGiven)
        #expect(measured.responseEnded() == .keepAlive)

        let unmeasured = Driver(maxBodySize: 100, isTunnel: false)
        _ = unmeasured.received(.head(keepAlive), now: now)
        _ = unmeasured.received(.end(nil), now: now)
        #expect(unmeasured.headWillBeWritten(for: unmeasured.answer, hasLength: false) == .untilClose)
        #expect(unmeasured.closesAfterResponse)
        #expect(unmeasured.responseEnded() == .close)

        let current = Driver(maxBodySize: 100, isTunnel: false)
        _ = current.received(.head(head(.GET, "/chunked")), now: now)
        _ = current.received(.end(nil), now: now)
        #expect(current.headWillBeWritten(for: current.answer, hasLength: false) == .asGiven, "HTTP/1.1 takes chunks")
    }

    @Test func whenTheServerStopsTheAnswerUnderWayIsTheConnectionsLastButAStreamJustFinishes() {
        let idle = Driver(maxBodySize: 100, isTunnel: false)
        #expect(idle.quiesce(), "between requests: close now")

        let answering = Driver(maxBodySize: 100, isTunnel: false)
        _ = answering.received(.head(head(.GET, "/first")), now: now)
        _ = answering.received(.end(nil), now: now)
        #expect(!answering.quiesce())
        #expect(answering.closesAfterResponse)
        #expect(answering.responseEnded() == .close)

        let reading = Driver(maxBodySize: 100, isTunnel: false)
        _ = reading.received(.head(head(.POST, "/", [("Content-Length", "3")])), now: now)
        #expect(!reading.quiesce())
        _ = reading.received(.end(nil), now: now)
        #expect(reading.closesAfterResponse, "the request being read is answered, as the last")

        // An HTTP/2 stream has no connection of its own: no Connection: close, the stream just ends.
        let stream = Driver(maxBodySize: 100, isTunnel: false)
        _ = stream.received(.head(head(.GET, "/", version: HTTPVersion(major: 2, minor: 0))), now: now)
        _ = stream.received(.end(nil), now: now)
        #expect(!stream.quiesce())
        #expect(!stream.closesAfterResponse)
    }

    @Test func aGRPCCallOnAnHTTP2StreamIsHandedOnBeforeItsBodyAndItsPartsFollow() {
        let http2 = HTTPVersion(major: 2, minor: 0)
        let call = head(.POST, "/demo.Greeter/Chat", version: http2, [("content-type", "application/grpc")])
        let machine = Driver(maxBodySize: 8, isTunnel: false)
        #expect(machine.received(.head(call), now: now) == .respondStreaming(call, arrival: now))
        #expect(machine.isResponding, "the answer may begin before the request ends")
        #expect(machine.readRequested(), "and the body is read on meanwhile")
        #expect(machine.received(.body(ByteBuffer(string: "ping")), now: now) == .requestBody(ByteBuffer(string: "ping")))
        #expect(machine.received(.body(ByteBuffer(string: "pong")), now: now) == .requestBody(ByteBuffer(string: "pong")))
        #expect(machine.received(.end(nil), now: now) == .requestEnd)
        #expect(machine.responseEnded() == .keepAlive)

        let tooLong = Driver(maxBodySize: 8, isTunnel: false)
        _ = tooLong.received(.head(call), now: now)
        #expect(tooLong.received(.body(ByteBuffer(string: "123456789")), now: now)
            == .refuseCall(reason: "the request body is over the limit of 8 bytes (--max-body)"))
        #expect(tooLong.received(.body(ByteBuffer(string: "1")), now: now) == .none, "what the client still sends is dropped")

        // Over HTTP/1.1 a gRPC request is taken whole, as is any other request on an HTTP/2 stream.
        let overHTTP1 = Driver(maxBodySize: 8, isTunnel: false)
        #expect(overHTTP1.received(.head(head(.POST, "/demo.Greeter/Chat", [("content-type", "application/grpc")])), now: now) == .none)
        let plain = Driver(maxBodySize: 8, isTunnel: false)
        #expect(plain.received(.head(head(.POST, "/items", version: http2)), now: now) == .none)
    }

    @Test func anUploadHandedOnWhileItArrivesKeepsItsLimitAndDeadline() {
        let upload = head(.POST, "/upload", [("Transfer-Encoding", "chunked")])
        let machine = Driver(maxBodySize: 8, isTunnel: false)
        #expect(machine.requestBeingReceived == nil)
        _ = machine.received(.head(upload), now: now)
        #expect(machine.received(.body(ByteBuffer(string: "1234")), now: now) == .collect(ByteBuffer(string: "1234")))
        #expect(machine.requestBeingReceived?.head == upload && machine.requestBeingReceived?.arrival == now)
        machine.handOnUpload()
        #expect(machine.isResponding && machine.readRequested(), "its answer may begin while the body is read on")
        #expect(machine.receivesBody, "the body deadline still runs")
        #expect(machine.received(.body(ByteBuffer(string: "5678")), now: now) == .requestBody(ByteBuffer(string: "5678")))
        #expect(machine.responseEnded() == .keepAlive, "the upstream may answer before the body ends")
        #expect(machine.received(.end(nil), now: now) == .requestEnd)
        #expect(!machine.receivesBody)

        let tooLong = Driver(maxBodySize: 8, isTunnel: false)
        _ = tooLong.received(.head(upload), now: now)
        _ = tooLong.received(.body(ByteBuffer(string: "1234")), now: now)
        tooLong.handOnUpload()
        #expect(tooLong.received(.body(ByteBuffer(string: "56789")), now: now)
            == .abandonRequest(reason: "the request body is over the limit of 8 bytes (--max-body)"))

        let stalled = Driver(maxBodySize: 8, isTunnel: false)
        _ = stalled.received(.head(upload), now: now)
        stalled.handOnUpload()
        #expect(stalled.bodyTimedOut() == .abandonRequest(reason: "no byte of the request body arrived for 60 s (--body-timeout)"),
                "its answer may be under way: no 408 now")
        #expect(stalled.received(.body(ByteBuffer(string: "1")), now: now) == .none, "what still comes is dropped")
    }

    @Test func aClientThatDoesNotTakeItsAnswersIsNotReadFrom() {
        let call = head(.POST, "/demo.Greeter/Chat", version: HTTPVersion(major: 2, minor: 0), [("content-type", "application/grpc")])
        let streamed = Driver(maxBodySize: 100, isTunnel: false)
        _ = streamed.received(.head(call), now: now)
        #expect(streamed.readRequested(), "a streamed call is read while it is answered")
        #expect(!streamed.writabilityChanged(isWritable: false), "no read was held")
        #expect(!streamed.readRequested(), "the client does not take what is written: its messages wait")
        #expect(streamed.writabilityChanged(isWritable: true), "it takes them again: the held read goes")
        #expect(streamed.readRequested())

        let whole = Driver(maxBodySize: 100, isTunnel: false)
        _ = whole.received(.head(head(.GET, "/first")), now: now)
        _ = whole.received(.end(nil), now: now)
        _ = whole.writabilityChanged(isWritable: false)
        #expect(!whole.readRequested())
        #expect(!whole.writabilityChanged(isWritable: true), "a whole request's answer is still under way")
        #expect(whole.responseEnded() == .keepAlive)
        #expect(whole.releaseHeldRead())
        _ = whole.writabilityChanged(isWritable: false)
        #expect(!whole.readRequested(), "between requests too")
    }

    @Test func aClosedConnectionTakesNoMoreWritesAndNothingWaitingIsTakenUp() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        _ = machine.received(.head(head(.GET, "/first")), now: now)
        _ = machine.received(.end(nil), now: now)
        _ = machine.received(.head(head(.GET, "/second")), now: now)
        let answer = machine.answer
        #expect(machine.accepts(answer))
        #expect(!machine.connectionClosed(), "no request body was arriving")
        #expect(!machine.accepts(answer), "the answer's writes are dropped")
        #expect(machine.headWillBeWritten(for: answer) == nil)
        #expect(machine.takeWaitingPart() == nil, "the pipelined request is not taken up")
        #expect(machine.received(.end(nil), now: now) == .none)
        #expect(!machine.idleTimeoutFired())
        #expect(!machine.quiesce())
        #expect(machine.decodingFailed(HTTPParserError.invalidMethod) == nil)

        let call = head(.POST, "/demo.Greeter/Chat", version: HTTPVersion(major: 2, minor: 0), [("content-type", "application/grpc")])
        let streamed = Driver(maxBodySize: 100, isTunnel: false)
        _ = streamed.received(.head(call), now: now)
        #expect(streamed.connectionClosed(), "the body of the call handed on early was cut")
        let ended = Driver(maxBodySize: 100, isTunnel: false)
        _ = ended.received(.head(call), now: now)
        _ = ended.received(.end(nil), now: now)
        #expect(!ended.connectionClosed(), "its body had ended")
    }

    @Test func partsArrivingDuringAResponseWaitAndReadsAreHeld() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        _ = machine.received(.head(head(.GET, "/first")), now: now)
        _ = machine.received(.end(nil), now: now)
        // The second request arrives while the first is answered: it waits, and so does the next read.
        #expect(machine.received(.head(head(.GET, "/second")), now: now) == .none)
        #expect(machine.received(.end(nil), now: now) == .none)
        #expect(machine.takeWaitingPart() == nil)
        #expect(!machine.readRequested())
        #expect(!machine.releaseHeldRead())

        #expect(machine.responseEnded() == .keepAlive)
        // Taken up in order: the head, then the end, which starts the second response and stops the take-up.
        #expect(machine.takeWaitingPart() == ExchangeStateMachine.PartAction.none)
        #expect(machine.takeWaitingPart() == .respond(head(.GET, "/second"), arrival: now))
        #expect(machine.takeWaitingPart() == nil)
        #expect(!machine.releaseHeldRead())
        #expect(machine.responseEnded() == .keepAlive)
        #expect(machine.releaseHeldRead())
        #expect(!machine.releaseHeldRead())
        #expect(machine.readRequested())
    }

    @Test func aDeclaredBodyOverTheLimitIsRefusedBeforeItArrivesAndGetsNoContinue() {
        let machine = Driver(maxBodySize: 10, isTunnel: false)
        let action = machine.received(.head(head(.PUT, "/", [("Content-Length", "11"), ("Expect", "100-continue")])), now: now)
        guard case .refuse(.contentTooLarge, let reason) = action else {
            Issue.record("expected 413, got \(action)")
            return
        }
        #expect(reason.contains("11 bytes") && reason.contains("--max-body"))
        #expect(machine.responseEnded() == .close)
    }

    @Test func aStreamedBodyOverTheLimitIsRefusedWhenItCrossesIt() {
        let machine = Driver(maxBodySize: 10, isTunnel: false)
        #expect(machine.received(.head(head(.POST, "/", [("Transfer-Encoding", "chunked")])), now: now) == .none)
        #expect(machine.received(.body(ByteBuffer(string: "0123456789")), now: now) == .collect(ByteBuffer(string: "0123456789")))
        #expect(machine.received(.body(ByteBuffer(string: "x")), now: now)
            == .refuse(.contentTooLarge, reason: "the request body is over the limit of 10 bytes (--max-body)"))
        // What follows the refusal is dropped.
        #expect(machine.received(.end(nil), now: now) == .none)
    }

    @Test func aBodyThatCannotBeKeptIsAnswered500AndTheConnectionCloses() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        #expect(machine.received(.head(head(.POST, "/", [("Content-Length", "4")])), now: now) == .none)
        #expect(machine.received(.body(ByteBuffer(string: "abcd")), now: now) == .collect(ByteBuffer(string: "abcd")))
        #expect(machine.bodyNotKept("the disk is full") == .refuse(.internalServerError, reason: "the disk is full"))
        #expect(machine.received(.end(nil), now: now) == .none, "the rest is dropped")
        #expect(machine.responseEnded() == .close)
    }

    @Test func expectContinueIsAnsweredInTheRequestsVersion() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        #expect(machine.received(.head(head(.PUT, "/", version: .http1_1, [("Expect", "100-Continue")])), now: now)
            == .sendContinue(.http1_1))
    }

    @Test func connectNeedsHostAndPortAndIsRefusedInsideATunnel() {
        let plain = Driver(maxBodySize: 100, isTunnel: false)
        #expect(plain.received(.head(head(.CONNECT, "[::1]:8443")), now: now) == .none)
        #expect(plain.received(.end(nil), now: now) == .planTunnel(host: "::1", port: 8443))
        plain.tunnelOpened()
        #expect(!plain.idleTimeoutFired())

        let noPort = Driver(maxBodySize: 100, isTunnel: false)
        #expect(noPort.received(.head(head(.CONNECT, "example.test")), now: now) == .refuse(.badRequest, reason: "CONNECT needs host:port"))
        let badPort = Driver(maxBodySize: 100, isTunnel: false)
        #expect(badPort.received(.head(head(.CONNECT, "example.test:70000")), now: now) == .refuse(.badRequest, reason: "CONNECT needs host:port"))
        let inTunnel = Driver(maxBodySize: 100, isTunnel: true)
        #expect(inTunnel.received(.head(head(.CONNECT, "example.test:443")), now: now) == .refuse(.badRequest, reason: "CONNECT needs host:port"))
    }

    @Test func parseErrorsAreAnsweredOnlyBetweenResponses() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        #expect(machine.decodingFailed(HTTPParserError.headerOverflow)
            == .refuse(.requestHeaderFieldsTooLarge, reason: "the request headers are over the size limit of 65536 bytes"))
        let other = Driver(maxBodySize: 100, isTunnel: false)
        #expect(other.decodingFailed(HTTPParserError.invalidHeaderToken) 
            == .refuse(.badRequest, reason: "malformed request: \(HTTPParserError.invalidHeaderToken)"))

        // Behind an answer under way, the refusal waits for it, and for the requests before it.
        let responding = Driver(maxBodySize: 100, isTunnel: false)
        _ = responding.received(.head(head(.GET, "/first")), now: now)
        _ = responding.received(.end(nil), now: now)
        _ = responding.received(.head(head(.GET, "/second")), now: now)
        _ = responding.received(.end(nil), now: now)
        #expect(responding.decodingFailed(HTTPParserError.invalidHeaderToken) == ExchangeStateMachine.PartAction.none)
        #expect(responding.responseEnded() == .keepAlive)
        #expect(responding.takeWaitingPart() == .some(.none))
        #expect(responding.takeWaitingPart() == .respond(head(.GET, "/second"), arrival: now))
        #expect(responding.responseEnded() == .keepAlive)
        #expect(responding.takeWaitingPart() == .refuse(.badRequest, reason: "malformed request: \(HTTPParserError.invalidHeaderToken)"))
        #expect(responding.closesAfterResponse)
        struct NotAParseError: Error {}
        let idle = Driver(maxBodySize: 100, isTunnel: false)
        #expect(idle.decodingFailed(NotAParseError()) == nil)
    }

    @Test func idleTimeoutClosesOnlyBetweenResponses() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        #expect(machine.idleTimeoutFired())
        _ = machine.received(.head(head(.POST, "/", [("Content-Length", "5")])), now: now)
        #expect(machine.idleTimeoutFired())  // a client that stalls mid-body is dropped too
        _ = machine.received(.end(nil), now: now)
        #expect(!machine.idleTimeoutFired())
    }

    @Test func aPartOutOfOrderIsABadRequest() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        _ = machine.received(.head(head()), now: now)
        #expect(machine.received(.head(head()), now: now) == .refuse(.badRequest, reason: "unexpected request part"))
    }

    @Test func proxyCredentialsAreAStepOfTheRequestAndItsChallengeWaitsItsTurn() {
        let credentials = ProxyCredentials(user: "u", password: "p")
        let machine = Driver(maxBodySize: 100, isTunnel: false,
                             proxyAuthentication: ProxyAuthentication(credentials: credentials, adminEnabled: true))
        let authorized = head(.GET, "/first", [("Proxy-Authorization", "Basic dTpw")])
        #expect(machine.received(.head(authorized), now: now) == .none)
        // The credentials go no further than the machine.
        #expect(machine.received(.end(nil), now: now) == .respond(head(.GET, "/first"), arrival: now))
        // An unauthorized request pipelined behind waits for the first answer, then is challenged.
        #expect(machine.received(.head(head(.GET, "/second")), now: now) == .none)
        #expect(machine.received(.end(nil), now: now) == .none)
        #expect(machine.responseEnded() == .keepAlive)
        #expect(machine.takeWaitingPart() == .some(.none))
        #expect(machine.takeWaitingPart() == .challenge(toAdmin: false))
        #expect(!machine.closesAfterResponse)
        #expect(machine.responseEnded() == .keepAlive)
        // An admin path may be asked with 401 instead; a client waiting for 100 Continue is answered at once.
        #expect(machine.received(.head(head(.POST, "/__tapedeck/reset", [("Expect", "100-continue")])), now: now)
            == .challenge(toAdmin: true))
        #expect(machine.closesAfterResponse)
    }

    @Test func eachAnswerIsNumberedAndTakesOneHead() {
        let machine = Driver(maxBodySize: 100, isTunnel: false)
        _ = machine.received(.head(head()), now: now)
        _ = machine.received(.end(nil), now: now)
        let first = machine.answer
        #expect(machine.headWillBeWritten(for: first) == .asGiven)
        #expect(machine.headWillBeWritten(for: first) == nil, "a second head for the same answer")
        #expect(machine.responseEnded() == .keepAlive)
        #expect(!machine.accepts(first), "an answer that ended takes no more writes")
        _ = machine.received(.head(head()), now: now)
        _ = machine.received(.end(nil), now: now)
        #expect(machine.answer == first + 1)
        #expect(!machine.accepts(first) && machine.accepts(first + 1))
    }
}
