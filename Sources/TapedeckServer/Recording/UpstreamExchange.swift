import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCore

/// One request forwarded upstream: the answer is streamed to the client piece by piece as
/// it arrives, timed, and turned into an interaction only if both sides finished.
struct UpstreamExchange: Sendable {
    let client: HTTPClient
    let request: IncomingRequest
    let cassetteRequest: CassetteRequest
    let sink: ResponseSink

    /// Forwards, streams back, and returns the finished interaction; nil when anything failed
    /// (the client then got 502/504 or a closed connection, and nothing is recorded).
    func run() async -> Interaction? {
        var upstream = HTTPClientRequest(url: cassetteRequest.url)
        upstream.method = request.head.method
        for (name, value) in request.head.headers where !HeaderList.isHopByHop(name) && !ControlHeaders.isControl(name) {
            let lower = name.lowercased()
            if lower == "content-length" { continue }
            upstream.headers.add(name: name, value: lower == "host" ? (cassetteRequest.headers["Host"] ?? value) : value)
        }
        if request.body.readableBytes > 0 || request.head.headers.contains(name: "Content-Length")
            || request.head.headers.contains(name: "Transfer-Encoding") {
            upstream.body = .bytes(request.body)
        }
        let clock = ContinuousClock()
        let start = clock.now
        let response: HTTPClientResponse
        do {
            response = try await client.execute(upstream, timeout: .hours(24))
        } catch {
            fail(error)
            return nil
        }
        let firstByte = clock.now
        var headers = HTTPHeaders()
        var recordedHeaders = HeaderList()
        for (name, value) in response.headers {
            recordedHeaders.append(name: name, value: value)
            if !HeaderList.isHopByHop(name) { headers.add(name: name, value: value) }
        }
        let isStream = response.headers.first(name: "Content-Type")?.lowercased().hasPrefix("text/event-stream") == true
        do {
            try await sink.writeHead(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers)).get()
        } catch {
            return nil
        }
        var body = ByteBuffer()
        var chunks: [StreamChunk] = []
        do {
            for try await piece in response.body {
                if isStream { chunks.append(StreamChunk(atMs: Self.milliseconds(clock.now - firstByte), data: Data(piece.readableBytesView))) }
                var copy = piece
                body.writeBuffer(&copy)
                try await sink.writeBody(piece).get()
            }
        } catch {
            sink.abort()
            return nil
        }
        let end = clock.now
        // Every body byte reached the client; a client that closes at once (Content-Length read) is complete.
        _ = try? await sink.end().get()
        var bodyData = Data(body.readableBytesView)
        if let coding = ContentCoding(header: response.headers.first(name: "Content-Encoding")),
           let decoded = try? coding.decode(bodyData) {
            bodyData = decoded
        }
        let storedResponse = CassetteResponse(status: Int(response.status.code), headers: recordedHeaders,
                                              body: isStream ? .empty : Body(bodyData))
        return Interaction(recordedAt: Timestamp.now(), request: cassetteRequest, response: storedResponse,
                           timing: Timing(firstByteMs: Self.milliseconds(firstByte - start), totalMs: Self.milliseconds(end - start)),
                           chunks: isStream ? chunks : nil)
    }

    private func fail(_ error: any Error) {
        let timedOut = (error as? HTTPClientError).map { $0 == .readTimeout || $0 == .deadlineExceeded } ?? false
        let status: HTTPResponseStatus = timedOut ? .gatewayTimeout : .badGateway
        let code = timedOut ? "upstream-timeout" : "upstream-unreachable"
        let message = timedOut ? "the upstream \(cassetteRequest.url) did not answer in time; nothing was recorded\n"
                               : "cannot reach the upstream for \(cassetteRequest.url): \(error); nothing was recorded\n"
        sink.send(status: status, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Tapedeck-Error", code)]),
                  body: ByteBuffer(string: message))
    }

    /// A duration in milliseconds, to a tenth.
    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded() / 10
    }
}
