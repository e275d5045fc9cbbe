import Foundation
import GRPCCore
import Tapedeck

/// What a live service answers to one call, taken part by part as it comes, and recorded as the
/// servers record it: initial metadata as headers, each message with its time from the first
/// byte (SPEC section 12's `atMs`), the status and trailing metadata as trailers.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct GRPCAnswer: Sendable {
    /// When the call started: every time is counted from here.
    let start: ContinuousClock.Instant
    private var metadata = Metadata()
    private var firstByte: Duration?
    /// Each message framed, with its time from the first byte.
    private var pieces: [StreamChunk] = []

    init(start: ContinuousClock.Instant = .now) {
        self.start = start
    }

    /// Takes the service's next part; once the status came, the interaction to record for `request`.
    mutating func take<Bytes: GRPCContiguousBytes>(_ part: RPCResponsePart<Bytes>, request: () -> CassetteRequest) -> Interaction? {
        let elapsed = start.duration(to: .now)
        let firstByte = self.firstByte ?? elapsed
        self.firstByte = firstByte
        switch part {
        case .metadata(let metadata):
            self.metadata = metadata
        case .message(let bytes):
            let message = GRPCMessage(bytes: bytes.withUnsafeBytes { Data($0) }, compressed: false)
            pieces.append(StreamChunk(atMs: (elapsed - firstByte).recordedMilliseconds, data: GRPCMessage.frame([message])))
        case .status(let status, let trailing):
            return interaction(request: request(), status: status, trailing: trailing, totalMs: elapsed.recordedMilliseconds)
        }
        return nil
    }

    private func interaction(request: CassetteRequest, status: Status, trailing: Metadata, totalMs: Double) -> Interaction {
        var headers: HeaderList = ["content-type": "application/grpc"]
        headers.append(metadata)
        var trailers: HeaderList = ["grpc-status": String(status.code.rawValue)]
        if !status.message.isEmpty { trailers.append(name: "grpc-message", value: GRPCStatusText.percentEncoded(status.message)) }
        trailers.append(trailing)
        // One message is a body; more are chunks, each paced on replay as it came (the servers' rule).
        let answer = GRPCCall.recordedAnswer(pieces) ?? (Data(), nil)
        return Interaction(recordedAt: Timestamp.now(), request: request,
                           response: CassetteResponse(status: 200, headers: headers, body: Body(answer.body, style: .grpc),
                                                      trailers: trailers),
                           timing: Timing(firstByteMs: (firstByte ?? .zero).recordedMilliseconds, totalMs: totalMs),
                           chunks: answer.chunks, httpVersion: "2")
    }
}
