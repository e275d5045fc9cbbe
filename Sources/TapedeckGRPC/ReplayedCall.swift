import Foundation
import GRPCCore
import Tapedeck

/// One replayed call: the client's request parts as the request the cassette holds, played on
/// the player, and the played interaction as response parts. Only translation: matching,
/// stubs, latency and the miss's text are the core's.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct ReplayedCall: Sendable {
    let descriptor: MethodDescriptor
    /// The call's deadline, from now.
    let timeout: Duration?
    let player: Player
    let clock: any Clock<Duration>

    /// Sends each part after its wait. A deadline shorter than the answer ends the call with
    /// DEADLINE_EXCEEDED when it passes, as a real server's would.
    func send<Bytes: GRPCContiguousBytes & Sendable>(_ parts: [(Duration, RPCResponsePart<[UInt8]>)],
                                                      into response: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation) async throws {
        var elapsed = Duration.zero
        for (delay, part) in parts {
            if let timeout, elapsed + delay > timeout {
                try await wait(timeout - elapsed, on: clock)
                response.yield(.status(Status(code: .deadlineExceeded, message: "the recorded answer is slower than the call's deadline"), [:]))
                return
            }
            try await wait(delay, on: clock)
            elapsed += delay
            response.yield(part.map { Bytes($0) })
        }
    }

    /// The call as the servers record it: `POST /package.Service/Method`, gRPC's headers, the
    /// metadata as headers (binary values in base64, as on the wire), the messages framed.
    func cassetteRequest(metadata: Metadata, messages: [GRPCMessage]) -> CassetteRequest {
        cassetteRequest(metadata: metadata, body: Body(GRPCMessage.frame(messages), style: .grpc))
    }

    /// The call with this body (framed messages already).
    func cassetteRequest(metadata: Metadata, body: Body) -> CassetteRequest {
        var headers: HeaderList = ["content-type": "application/grpc", "te": "trailers"]
        headers.append(metadata)
        return CassetteRequest(method: "POST", url: "/" + descriptor.fullyQualifiedMethod, headers: headers, body: body)
    }

    /// What the client hears, each part with the wait before it: the recorded answer, or, when
    /// nothing matches, UNIMPLEMENTED with the diagnosis, as the replay server answers.
    func play(_ request: CassetteRequest) -> [(Duration, RPCResponsePart<[UInt8]>)] {
        switch player.play(request) {
        case .unmatched(let diagnosis): Self.miss(diagnosis)
        case .played(let playback): Self.parts(of: playback)
        }
    }

    /// The answer to a call nothing matches: UNIMPLEMENTED with the diagnosis.
    static func miss(_ diagnosis: MatchDiagnosis) -> [(Duration, RPCResponsePart<[UInt8]>)] {
        [(.zero, .status(Status(code: .unimplemented, message: GRPCStatusText.miss(diagnosis)), [:]))]
    }

    /// A played interaction as response parts: headers (but gRPC's own) as initial metadata, each
    /// recorded message, and the trailers as status and trailing metadata.
    static func parts(of playback: Playback) -> [(Duration, RPCResponsePart<[UInt8]>)] {
        if let fault = playback.fault {
            // As grpc-swift hears the servers' faults: a GOAWAY is UNAVAILABLE, anything else INTERNAL.
            let code: Status.Code = fault == .goaway ? .unavailable : .internalError
            return [(playback.delay.head, .status(Status(code: code, message: "the stub broke the call (\(fault.rawValue))"), [:]))]
        }
        let interaction = playback.interaction
        let status = status(of: interaction)
        if isTrailersOnly(interaction.response) { return [(playback.delay.total, status)] }
        var parts: [(Duration, RPCResponsePart<[UInt8]>)] = [(playback.delay.head, .metadata(Metadata(headers: interaction.response.headers)))]
        for message in GRPCMessage.split(interaction.responseBodyData) ?? [] { parts.append((.zero, .message([UInt8](message.bytes)))) }
        parts.append((max(.zero, playback.delay.total - playback.delay.head), status))
        return parts
    }

    /// Whether an answer is trailers-only (an error): no initial metadata of its own.
    static func isTrailersOnly(_ response: CassetteResponse) -> Bool {
        response.trailers == nil && response.headers["grpc-status"] != nil
    }

    /// A recorded answer's status and trailing metadata.
    static func status(of interaction: Interaction) -> RPCResponsePart<[UInt8]> {
        let response = interaction.response
        let trailers = isTrailersOnly(response) ? response.headers : (response.trailers?.asTrailers(of: response.headers) ?? HeaderList())
        let code = trailers["grpc-status"].flatMap(GRPCCall.statusCode).flatMap(Status.Code.init(rawValue:)) ?? .unknown
        return .status(Status(code: code, message: trailers["grpc-message"].map(GRPCStatusText.percentDecoded) ?? ""),
                       Metadata(headers: trailers))
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension RPCResponsePart<[UInt8]> {
    /// The same part with its message as other bytes.
    func map<Other: GRPCContiguousBytes>(_ transform: ([UInt8]) -> Other) -> RPCResponsePart<Other> {
        switch self {
        case .metadata(let metadata): .metadata(metadata)
        case .message(let bytes): .message(transform(bytes))
        case .status(let status, let metadata): .status(status, metadata)
        }
    }
}
