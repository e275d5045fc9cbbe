import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCore

/// One request forwarded upstream through AsyncHTTPClient's delegate API, its callbacks run on
/// the client connection's own event loop (and a pooled upstream connection of that loop when
/// one is idle), so nothing hops threads: the answer is streamed to the client piece by piece as
/// it arrives, timed, and handed to `finished` as an exchange only if both sides completed.
///
/// `.delegate(on:)`, not `.delegateAndChannel(on:)`: AsyncHTTPClient closes connections opened
/// for a required event loop once idle, so every request would open a new upstream connection.
final class UpstreamExchange: HTTPClientResponseDelegate {
    typealias Response = Void

    /// What arrived from the upstream so far.
    private struct Progress {
        var status = 0
        var headers = HeaderList()
        var isStream = false
        var body = ByteBuffer()
        var chunks: [StreamChunk] = []
        var firstByte: NIODeadline?
        var clientGone = false
        var headWritten = false
        var reported = false
        var task: HTTPClient.Task<Void>?
    }

    private let cassetteRequest: CassetteRequest
    private let sink: ResponseSink
    private let start: NIODeadline
    private let finished: @Sendable (FinishedExchange?) -> Void
    private let progress = Locked(Progress())

    private init(cassetteRequest: CassetteRequest, sink: ResponseSink, finished: @escaping @Sendable (FinishedExchange?) -> Void) {
        self.cassetteRequest = cassetteRequest
        self.sink = sink
        self.finished = finished
        start = .now()
    }

    /// Forwards a request; `finished` is called exactly once, with the exchange when the client
    /// got the whole answer, nil when anything failed (the client then got 502/504 or a closed connection).
    /// `preference` is `.delegate(on: sink.eventLoop)` when the client shares the server's event loops.
    static func run(client: HTTPClient, request: IncomingRequest, cassetteRequest: CassetteRequest, sink: ResponseSink,
                    preference: HTTPClient.EventLoopPreference, finished: @escaping @Sendable (FinishedExchange?) -> Void) {
        let exchange = UpstreamExchange(cassetteRequest: cassetteRequest, sink: sink, finished: finished)
        var headers = HTTPHeaders()
        for (name, value) in request.head.headers where !HeaderList.isHopByHop(name) && !ControlHeaders.isControl(name) {
            if name.caseInsensitiveEqual("Content-Length") { continue }
            headers.add(name: name, value: name.caseInsensitiveEqual("Host") ? (cassetteRequest.headers["Host"] ?? value) : value)
        }
        let hasBody = request.body.readableBytes > 0 || request.head.headers.contains(name: "Content-Length")
            || request.head.headers.contains(name: "Transfer-Encoding")
        let upstream: HTTPClient.Request
        do {
            upstream = try HTTPClient.Request(url: cassetteRequest.url, method: request.head.method, headers: headers,
                                              body: hasBody ? .byteBuffer(request.body) : nil)
        } catch {
            exchange.fail(error)
            return
        }
        let task = client.execute(request: upstream, delegate: exchange, eventLoop: preference)
        exchange.progress.withLock { $0.task = task }
        task.futureResult.whenFailure { error in exchange.fail(error) }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        var headers = HTTPHeaders()
        var recorded = HeaderList()
        for (name, value) in head.headers {
            recorded.append(name: name, value: value)
            if !HeaderList.isHopByHop(name) { headers.add(name: name, value: value) }
        }
        let isStream = head.headers.first(name: "Content-Type")?.lowercased().hasPrefix("text/event-stream") == true
        progress.withLock { progress in
            progress.firstByte = .now()
            progress.status = Int(head.status.code)
            progress.headers = recorded
            progress.isStream = isStream
            progress.headWritten = true
        }
        sink.streamHead(HTTPResponseHead(version: .http1_1, status: head.status, headers: headers))
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let now = NIODeadline.now()
        progress.withLock { progress in
            if progress.isStream {
                let at = UpstreamExchange.milliseconds(now - (progress.firstByte ?? now))
                progress.chunks.append(StreamChunk(atMs: at, data: Data(buffer.readableBytesView)))
            }
            var copy = buffer
            if progress.body.readableBytes == 0 { progress.body = copy } else { progress.body.writeBuffer(&copy) }
        }
        let (written, ready) = sink.streamBody(buffer)
        written.whenFailure { [self] _ in
            progress.withLock { $0.clientGone = true }
            task.cancel()
        }
        return ready
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {}

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        let end = NIODeadline.now()
        sink.end().whenComplete { [self] _ in
            // Every body byte reached the client; a client that closes at once (Content-Length read) is complete.
            let (first, taken) = progress.withLock { progress -> (Bool, Progress?) in
                if progress.reported { return (false, nil) }
                let taken = progress.clientGone ? nil : progress
                progress = Progress()
                progress.reported = true
                return (true, taken)
            }
            guard first else { return }
            guard let taken else {
                finished(nil)
                return
            }
            let firstByte = taken.firstByte ?? end
            finished(FinishedExchange(request: cassetteRequest, status: taken.status, headers: taken.headers, body: taken.body,
                                      chunks: taken.isStream ? taken.chunks : nil,
                                      timing: Timing(firstByteMs: Self.milliseconds(firstByte - start),
                                                     totalMs: Self.milliseconds(end - start))))
        }
    }

    /// Answers 502 or 504 when nothing was sent yet, closes the connection otherwise; reports nothing recorded.
    private func fail(_ error: any Error) {
        let (headWritten, first) = progress.withLock { progress -> (Bool, Bool) in
            let first = !progress.reported
            progress.reported = true
            return (progress.headWritten, first)
        }
        guard first else { return }
        defer { finished(nil) }
        if headWritten {
            sink.abort()
            return
        }
        let timedOut = (error as? HTTPClientError).map { $0 == .readTimeout || $0 == .deadlineExceeded } ?? false
        let status: HTTPResponseStatus = timedOut ? .gatewayTimeout : .badGateway
        let code = timedOut ? "upstream-timeout" : "upstream-unreachable"
        let message = timedOut ? "the upstream \(cassetteRequest.url) did not answer in time; nothing was recorded\n"
                               : "cannot reach the upstream for \(cassetteRequest.url): \(error); nothing was recorded\n"
        sink.send(status: status, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Tapedeck-Error", code)]),
                  body: ByteBuffer(string: message))
    }

    /// A time amount in milliseconds, to a tenth.
    static func milliseconds(_ amount: TimeAmount) -> Double {
        (Double(amount.nanoseconds) / 100_000).rounded() / 10
    }
}

/// A forwarded exchange both sides completed, as raw as it arrived: turned into an interaction
/// (body copied and decoded) off the event loop.
struct FinishedExchange: Sendable {
    let request: CassetteRequest
    let status: Int
    let headers: HeaderList
    let body: ByteBuffer
    let chunks: [StreamChunk]?
    let timing: Timing

    /// The interaction to record: the body stored decoded, a stream stored as its chunks.
    func interaction() -> Interaction {
        var bodyData = chunks == nil ? Data(body.readableBytesView) : Data()
        if chunks == nil, let coding = ContentCoding(header: headers["Content-Encoding"]), let decoded = try? coding.decode(bodyData) {
            bodyData = decoded
        }
        let response = CassetteResponse(status: status, headers: headers, body: chunks == nil ? Body(bodyData) : .empty)
        return Interaction(recordedAt: Timestamp.now(), request: request, response: response, timing: timing, chunks: chunks)
    }
}
