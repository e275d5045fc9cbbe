import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
@_spi(Internals) import TapedeckCore
import TapedeckNIO

/// Why a forwarded exchange was not completed, and so not recorded: what the log line names.
enum ExchangeFailure: Error, CustomStringConvertible {
    /// The connection could not be made.
    case unreachable(any Error)
    /// The upstream stayed silent longer than the timeout.
    case timedOut(TimeAmount)
    /// The upstream closed the connection before the answer was complete.
    case closedEarly
    /// The connection failed (reset, TLS, malformed answer).
    case broken(any Error)
    /// The client left before the whole answer was written to it.
    case clientGone
    /// A large body could not be written to its side file (disk full, say).
    case bodyNotKept(SideFileError)

    var description: String {
        switch self {
        case .unreachable(let error): "the upstream could not be reached: \(UpstreamFailureText.describe(error))"
        case .timedOut(let timeout): "the upstream was silent for \(UpstreamExchange.seconds(timeout))"
        case .closedEarly: "the upstream closed the connection before the answer was complete"
        case .broken(let error): "the upstream connection failed: \(UpstreamFailureText.describe(error))"
        case .clientGone: "the client left before the whole answer was written to it"
        case .bodyNotKept(let error): "the body could not be kept: \(error)"
        }
    }
}

/// One request forwarded upstream, everything on the client connection's event loop (the
/// upstream connection lives on the same loop, so nothing hops threads): the answer is streamed
/// to the client piece by piece as it arrives, timed, and handed to `finished` as an exchange
/// only if both sides completed.
final class UpstreamExchange {
    /// Where the exchange is.
    private enum State {
        /// The request is on its way; nothing came back yet.
        case waiting
        /// The head arrived; the body streams to the client and is kept for the cassette.
        case receiving(ResponseSoFar)
        /// Only while the body kept is appended to, so it has one owner and grows in place.
        case modifying
        /// Finished, failed or handed over: nothing more happens.
        case done
    }

    /// What came back so far.
    private struct ResponseSoFar {
        var status: Int
        var headers: HeaderList
        /// The version the upstream answered in: `"1.1"`, `"1.0"` or `"2"`.
        var httpVersion: String
        /// Whether the answer is a server-sent event stream or a gRPC answer, kept as timed chunks.
        var isStream: Bool
        var firstByte: NIODeadline
        /// The body so far, copied out of the read buffers so that SwiftNIO can reuse them for the
        /// next read instead of allocating new ones while the exchange waits to be recorded.
        var body = Data()
        var chunks: [StreamChunk] = []
        /// A gRPC trailers-only answer's status and metadata, sent and kept as its trailers.
        var trailersOnly: HeaderList?
        /// Where the body goes once it passed the spooling threshold; `body` stays empty then.
        var spool: SideFileSpool?
        /// Why the body could not be kept: the answer still goes to the client, but is not recorded.
        var spoolError: SideFileError?
    }

    private var state = State.waiting
    private var cassetteRequest: CassetteRequest
    /// The request's body while it arrives, when it was forwarded before it ended.
    private var streamedRequest: RequestBodyStream?
    /// The request's body when it was too large for memory: made a side file when recorded.
    private var spooledRequest: SpooledBody?
    /// The same, while it still arrives: recorded once whole.
    private var arrivingRequest: ArrivingUpload?
    private let sink: ResponseSink
    /// How long the upstream may stay silent.
    let timeout: TimeAmount
    private let start: NIODeadline
    /// Where a large body goes as it passes; nil keeps every body in memory.
    private let spooling: LargeBodySpooling?
    /// Told once, when the state becomes `done`: the exchange, or why there is none to record.
    private let finished: (Result<FinishedExchange, ExchangeFailure>) -> Void
    private var connection: UpstreamConnection?
    private var lastActivity: NIODeadline
    /// Sends the request again on a new connection, once, when a kept connection turns out to be
    /// closed by the upstream before answering (it may close idle connections at any time).
    var retry: (() -> Void)?
    /// Sends the request again on another connection when the upstream did not process its HTTP/2
    /// stream (``UpstreamHTTP2Connection/isRefusal(_:)``), even on a connection just opened.
    var retryRefused: (() -> Void)?

    init(cassetteRequest: CassetteRequest, sink: ResponseSink, timeout: TimeAmount, spooling: LargeBodySpooling? = nil,
         finished: @escaping (Result<FinishedExchange, ExchangeFailure>) -> Void) {
        self.cassetteRequest = cassetteRequest
        self.sink = sink
        self.timeout = timeout
        self.spooling = spooling
        self.finished = finished
        // Time is the connection's event loop's, so an EmbeddedEventLoop drives it in tests.
        start = sink.eventLoop.now
        lastActivity = start
    }

    /// Whether the exchange is over: answered, failed, or its client gone.
    var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// Sends the request on `connection`, which watches it for silence. A streamed body is kept
    /// as it passes, and the cassette gets all of it (``receivedEnd(trailers:connectionReusable:)``).
    func send(_ head: HTTPRequestHead, body: ForwardedBody, on connection: UpstreamConnection) {
        guard !isDone else {
            // The client left while the connection was being opened: one that can carry another
            // exchange stays with the scope; an HTTP/2 stream, good for this exchange only, closes.
            if !connection.isIdle { connection.close() }
            return
        }
        self.connection = connection
        switch body {
        case .streamed(let stream): streamedRequest = stream
        case .spooled(let spooled): spooledRequest = spooled
        case .arriving(let upload): arrivingRequest = upload
        case .whole: break
        }
        lastActivity = sink.eventLoop.now
        connection.send(head, body: body, to: self, flushingWith: sink.scope.deferredFlush)
    }

    func receivedHead(_ head: HTTPResponseHead) {
        guard case .waiting = state else { return }
        retry = nil
        retryRefused = nil
        let now = sink.eventLoop.now
        lastActivity = now
        var headers = HeaderList()
        headers.reserveCapacity(head.headers.count)
        let hopByHop = HopByHopFields(connection: head.headers["Connection"])
        var hasHopByHop = false
        for (name, value) in head.headers {
            headers.append(name: name, value: value)
            if hopByHop.contains(name) { hasHopByHop = true }
        }
        var forwarded = head.headers
        if hasHopByHop {
            forwarded = HTTPHeaders(head.headers.filter { !hopByHop.contains($0.name) })
        }
        let contentType = head.headers.first(name: "Content-Type")
        let isGRPC = GRPCCall.isGRPC(contentType: contentType)
        // A gRPC trailers-only answer comes as one HEADERS frame, which reaches here as a head and
        // an end: the client gets (and the cassette keeps) its status and metadata as trailers.
        let trailersOnly = isGRPC ? GRPCCall.splitTrailersOnly(headers) : nil
        if let trailersOnly {
            headers = trailersOnly.head
            forwarded = HTTPHeaders(trailersOnly.head)
        }
        // Server-sent events and gRPC answers are kept as timed pieces, to be replayed at their pace.
        let isStream = isGRPC || contentType.map { Substring($0.utf8.prefix(17)).caseInsensitiveEquals("text/event-stream") } ?? false
        let version = head.version.major >= 2 ? "2" : "\(head.version.major).\(head.version.minor)"
        state = .receiving(ResponseSoFar(status: Int(head.status.code), headers: headers, httpVersion: version, isStream: isStream,
                                         firstByte: now, trailersOnly: trailersOnly?.trailers))
        sink.streamHead(HTTPResponseHead(version: .http1_1, status: head.status.legal, headers: forwarded.legal))
    }

    /// Passes a piece of body on; returns what to wait for before reading more when the client is slow.
    func receivedBody(_ buffer: ByteBuffer) -> EventLoopFuture<Void>? {
        guard case .receiving(var response) = state else { return nil }
        state = .modifying
        let now = sink.eventLoop.now
        lastActivity = now
        if response.isStream {
            response.chunks.append(StreamChunk(atMs: Self.milliseconds(now - response.firstByte), data: Data(copying: buffer)))
        } else {
            keep(buffer, in: &response)
        }
        state = .receiving(response)
        return sink.streamBody(buffer)
    }

    /// Keeps a piece of body for the cassette: in memory, or in the spool once past the threshold.
    private func keep(_ buffer: ByteBuffer, in response: inout ResponseSoFar) {
        guard response.spoolError == nil else { return }
        do throws(SideFileError) {
            if let spool = response.spool {
                try spool.append(Data(copying: buffer))
                return
            }
            response.body.append(copying: buffer)
            let contentType = response.headers["Content-Type"]
            guard let spooling, response.body.count > spooling.threshold(contentType), let spool = try spooling.start(contentType) else { return }
            response.spool = spool
            try spool.append(response.body)
            response.body = Data()
        } catch {
            response.spoolError = error
            response.spool?.discard()
            response.spool = nil
            response.body = Data()
        }
    }

    /// Sends the client what arrived so far: called once per burst of reads from the upstream.
    func flush() {
        sink.flush()
    }

    func receivedEnd(trailers: HTTPHeaders?, connectionReusable: Bool) {
        guard case .receiving(let response) = state else { return }
        state = .done
        let end = sink.eventLoop.now
        if let connection {
            if connectionReusable { sink.scope.exchangeEnded(on: connection) } else { connection.close() }
        }
        connection = nil
        let kept = trailers.map(HeaderList.init) ?? response.trailersOnly
        let trailers = kept.map { HTTPHeaders($0.asTrailers(of: response.headers)) }
        if let streamedRequest {
            // What the client sent of the call (all of it, unless the upstream ended the call first),
            // each message with its time from the request's start, on the clock of `timing`.
            cassetteRequest.body = IncomingRequest.cassetteBody(Data(streamedRequest.received.readableBytesView),
                                                                 headers: cassetteRequest.headers)
            cassetteRequest.body.messageTimes = streamedRequest.messageTimes(since: start)
        }
        var exchange = FinishedExchange(request: cassetteRequest, status: response.status, headers: response.headers,
                                        body: response.body, spool: response.spool, chunks: response.isStream ? response.chunks : nil,
                                        timing: Timing(firstByteMs: Self.milliseconds(response.firstByte - start),
                                                       totalMs: Self.milliseconds(end - start)),
                                        trailers: kept, httpVersion: response.httpVersion,
                                        upload: spooledRequest.flatMap { body in spooling.map { RecordedUpload(body: body, spooling: $0) } })
        let (finished, arriving, uploadSpooling) = (finished, arrivingRequest, spooling)
        sink.end(trailers: trailers).assumeIsolated().whenComplete { written in
            // The end fails when the client went away before everything was written to it.
            switch written {
            case .success:
                if let error = response.spoolError {
                    finished(.failure(.bodyNotKept(error)))
                } else if let arriving {
                    // An upstream may answer before the upload ended: it is recorded once whole.
                    arriving.whenEnded { whole in
                        guard let whole else {
                            exchange.spool?.discard()
                            return finished(.failure(.clientGone))
                        }
                        exchange.upload = uploadSpooling.map { RecordedUpload(body: whole, spooling: $0) }
                        finished(.success(exchange))
                    }
                } else {
                    finished(.success(exchange))
                }
            case .failure:
                // No half side file stays behind: the spool's temporary file goes with the exchange.
                exchange.spool?.discard()
                finished(.failure(.clientGone))
            }
        }
    }

    /// The upstream closed the connection: sends the request again when that happened on a kept
    /// connection before any answer, fails the exchange otherwise.
    func upstreamClosed() {
        if !retried(with: retry) { failed(.closedEarly) }
    }

    /// The upstream connection (or stream) failed: before any answer, sends the request again when
    /// the upstream did not process it (``retryRefused``) or the connection was a kept one
    /// (``retry``: a reset, a stream refused after `GOAWAY`); fails the exchange otherwise.
    func upstreamFailed(_ error: any Error) {
        if UpstreamHTTP2Connection.isRefusal(error), retried(with: retryRefused) { return }
        if !retried(with: retry) { failed(.broken(error)) }
    }

    /// Runs `again` when there is one and nothing was answered yet, forgetting both retries (the
    /// new attempt sets its own); whether it did.
    private func retried(with again: (() -> Void)?) -> Bool {
        guard case .waiting = state, let again else { return false }
        retry = nil
        retryRefused = nil
        connection = nil
        again()
        return true
    }

    /// Answers 502 or 504 when nothing was sent yet, closes the client connection otherwise;
    /// reports nothing recorded.
    func failed(_ failure: ExchangeFailure) {
        let before = state
        guard !isDone else { return }
        state = .done
        if case .receiving(let response) = before { response.spool?.discard() }
        connection?.close()
        connection = nil
        defer { finished(.failure(failure)) }
        guard case .waiting = before else {
            // Part of the answer is with the client already: all that is left is to cut it.
            sink.abort()
            return
        }
        let url = cassetteRequest.url
        let (status, code, message): (HTTPResponse.Status, String, String)
        switch failure {
        case .clientGone, .bodyNotKept:
            return  // nobody is left to answer, or the answer is under way
        case .timedOut:
            (status, code, message) = (.gatewayTimeout, "upstream-timeout",
                                       "the upstream \(url) did not answer within \(Self.seconds(timeout)); nothing was recorded")
        case .broken(let error as HTTPParserError):
            // Reached, but what it answered does not parse as HTTP/1.1.
            (status, code, message) = (.badGateway, "upstream-unreachable",
                                       "the upstream for \(url) answered with what is not HTTP/1.1 (\(error)); nothing was recorded")
        case .unreachable(let reached as UpstreamConnectionLimit.Reached):
            (status, code, message) = (.serviceUnavailable, "upstream-busy", "\(reached); nothing was recorded")
        case .unreachable(let error), .broken(let error):
            (status, code, message) = (.badGateway, "upstream-unreachable",
                                       "cannot reach the upstream for \(url): \(UpstreamFailureText.describe(error)); nothing was recorded")
        case .closedEarly:
            (status, code, message) = (.badGateway, "upstream-unreachable",
                                       "the upstream for \(url) closed the connection without answering; nothing was recorded")
        }
        sink.refuse(Refusal(status, code: code, message))
    }

    /// Fails the exchange when the upstream has been silent for the whole timeout; otherwise
    /// returns when it would have been, for the connection's watchdog. Nil once finished.
    func silenceDeadline() -> NIODeadline? {
        guard !isDone else { return nil }
        let silentUntil = lastActivity + timeout
        if silentUntil <= sink.eventLoop.now {
            failed(.timedOut(timeout))
            return nil
        }
        return silentUntil
    }

    /// A time amount as the cassette keeps it: the core's rule for every recorder.
    static func milliseconds(_ amount: TimeAmount) -> Double {
        Duration.nanoseconds(amount.nanoseconds).recordedMilliseconds
    }

    /// A time amount for a message: "30 s" or "250 ms".
    static func seconds(_ amount: TimeAmount) -> String {
        amount.nanoseconds % 1_000_000_000 == 0 ? "\(amount.nanoseconds / 1_000_000_000) s" : "\(amount.nanoseconds / 1_000_000) ms"
    }
}

/// A forwarded exchange both sides completed, as raw as it arrived: turned into an interaction
/// (body copied and decoded) off the event loop.
struct FinishedExchange: Sendable {
    let request: CassetteRequest
    let status: Int
    let headers: HeaderList
    /// The body as it came, empty for a stream or a spooled body.
    let body: Data
    /// The body as it came when it was large: in a temporary file, made a side file when recorded.
    var spool: SideFileSpool? = nil
    let chunks: [StreamChunk]?
    let timing: Timing
    /// The trailing headers, nil when the upstream sent none.
    var trailers: HeaderList? = nil
    /// The version the upstream answered in.
    var httpVersion: String? = nil
    /// The WebSocket conversation after a 101.
    var websocket: [WebSocketMessage]? = nil
    /// The request's body when it was spooled as it arrived: copied into the cassette's bodies folder when recorded.
    var upload: RecordedUpload? = nil

    /// The most body bytes, request and response together, of an exchange recorded on the event loop.
    static let lightLimit = 16 * 1024

    /// Whether recording it costs little enough to do on the event loop: bodies of at most
    /// ``lightLimit`` bytes together and none to decompress.
    var isLight: Bool {
        let size = request.body.count + body.count + (chunks?.reduce(0) { $0 + $1.data.count } ?? 0)
        return spool == nil && upload == nil && websocket == nil && size <= Self.lightLimit && headers["Content-Encoding"] == nil
    }

    /// The interaction to record: the body stored decoded (or, when it does not decode, as
    /// received and marked so), a stream stored as its chunks, a spooled body installed as its side file.
    func interaction(recordedAt: String) throws(SideFileError) -> Interaction {
        var stored: Body
        var chunks = chunks
        if let spool {
            stored = try spool.install(contentEncoding: headers["Content-Encoding"])
        } else {
            stored = chunks == nil ? Body.storing(received: body, contentEncoding: headers["Content-Encoding"]) : .empty
        }
        if let pieces = chunks, GRPCCall.isGRPC(contentType: headers["Content-Type"]), let answer = GRPCCall.recordedAnswer(pieces) {
            (stored, chunks) = (Body(answer.body), answer.chunks)
        }
        let response = CassetteResponse(status: status, headers: headers, body: stored, trailers: trailers)
        var request = request
        if let upload { request.body = try upload.install(as: request) }
        return Interaction(recordedAt: recordedAt, request: request, response: response, timing: timing, chunks: chunks,
                           httpVersion: httpVersion, websocket: websocket)
    }
}
