import NIOCore
import NIOSSL
import TapedeckCore

/// What a mode decided for one request. Modes (``ReplayMode``, ``RecordingMode``) only decide;
/// ``FrontDoor`` carries every decision out on the connection.
package enum Decision: Sendable {
    /// Serve this played interaction (prepared once), noting it in the journal.
    case play(Playback, prepared: PreparedResponse, request: CassetteRequest, session: String)
    /// Nothing matched: the unmatched status with this diagnosis.
    case unmatched(MatchDiagnosis, request: CassetteRequest, session: String)
    /// Refuse with a status, a code and a reason.
    case refuse(Refusal)
    /// Send the request to the live service and stream its answer back.
    case forward(Forwarding)
    /// Hand the connection over to a byte relay to the upstream (a WebSocket upgrade to a passthrough host).
    case tunnel(UpstreamTunnel)
    /// Open the WebSocket upstream and record the conversation.
    case webSocket(WebSocketRecording)
    /// Replay one of these recorded chats to a gRPC client as it speaks (its body is still arriving).
    case playChat([RecordedChat], session: String)
}

extension Decision {
    /// Plays `playback` with its answer from `responses`; an answer that cannot be sent (a stub's
    /// body that cannot be encoded) is refused with 500.
    static func playing(_ playback: Playback, from responses: PreparedResponses, request: CassetteRequest,
                        session: String) -> Decision {
        do {
            return .play(playback, prepared: try responses.response(for: playback), request: request, session: session)
        } catch {
            return .refuse(Refusal(.internalServerError, code: "not-prepared",
                                   "\(playback.source) cannot be sent: \(error)"))
        }
    }
}

extension Decision {
    /// Under `--openapi-strict`, the refusal of a request that breaks the API document; nil otherwise.
    static func refusal(of request: CassetteRequest, breaking contract: APIContract?) -> Decision? {
        guard let contract, contract.refusesViolations else { return nil }
        let violations = contract.violations(of: request)
        return violations.isEmpty ? nil : .refuse(.contractViolated(violations, request: request))
    }
}

/// A request going to the live service: what to send, where, and whether the exchange is recorded
/// (``RecordingRunner`` carries it out).
package struct Forwarding: Sendable {
    /// The request as the upstream gets it (secrets revealed to it).
    var request: IncomingRequest
    /// The request as the cassette keeps it.
    var cassetteRequest: CassetteRequest
    /// Where it goes.
    var target: RequestTarget
    /// Whether the finished exchange goes into the cassette; a passthrough host's is only shown in the inspector.
    var record: Bool
}

/// A connection relayed to an upstream: where to, with what TLS, and the bytes to send first.
package struct UpstreamTunnel: Sendable {
    var host: String
    var port: Int
    var tls: NIOSSLContext?
    var initialBytes: ByteBuffer
}
