import NIOSSL
import TapedeckCore

/// What a server does with the requests it serves: replay cassettes (``ReplayMode``) or record
/// through to the live service (``RecordingMode``). A mode only decides; it never touches a
/// connection. ``FrontDoor`` handles what is the same for every mode (the admin API, `CONNECT`
/// plans) and carries the decision out.
package protocol Mode: Sendable {
    /// The admin API of this mode's server: health, journal, stubs, the inspector.
    var admin: AdminEndpoints { get }
    /// How played and unmatched requests are answered and noted.
    var answers: PlaybackAnswers { get }
    /// The local CA that intercepted HTTPS is served with.
    var authority: CertificateAuthority { get }

    /// Decides one complete request (never an admin one), from any thread. With `quickly` (on an
    /// event loop), nil when deciding would evaluate a stub's regular expression, which may take
    /// up to its time budget: the front door then decides it again off the event loop. Without
    /// it, never nil.
    func decide(_ request: IncomingRequest, control: ControlHeaders, quickly: Bool) -> Decision?

    /// Decides a request whose body is still arriving (``IncomingRequest/bodyStream``,
    /// ``IncomingRequest/arrivingBody``) when its body cannot change the decision; nil to decide it
    /// once it is complete. On the event loop.
    func decideStreaming(_ request: IncomingRequest, control: ControlHeaders) -> Decision?

    /// Whether `CONNECT` to `host` is relayed untouched rather than intercepted.
    func passesThrough(host: String) -> Bool

    /// What carries out the decisions that reach the live service (`.forward`, `.webSocket`); nil
    /// for a mode that never makes them.
    var recording: RecordingRunner? { get }

    /// What carries out `.playChat` decisions; nil for a mode that never makes them.
    var chats: ChatRunner? { get }
}

extension Mode {
    package func passesThrough(host: String) -> Bool { false }

    package var recording: RecordingRunner? { nil }

    package var chats: ChatRunner? { nil }

    /// Every request is decided whole.
    package func decideStreaming(_ request: IncomingRequest, control: ControlHeaders) -> Decision? { nil }
}

/// What a `CONNECT` request turns into.
package enum ConnectPlan: Sendable {
    /// Answer 200, then intercept TLS with this server context and serve HTTP inside.
    case intercept(NIOSSLContext)
    /// Answer 200, then relay bytes untouched to the host (recording proxy passthrough).
    case relay
    /// Refuse.
    case refuse(Refusal)
}

/// What a connection hands complete requests and `CONNECT`s to: ``FrontDoor`` in both servers;
/// the connection tests stand in their own, to answer when they choose.
package protocol Responder: Sendable {
    /// Answers one complete request through the sink, now or later, on any thread.
    func respond(to request: IncomingRequest, sink: ResponseSink)

    /// What a `CONNECT host:port` becomes.
    func connectPlan(host: String, port: Int) -> ConnectPlan

    /// Whether a request whose large body is still arriving goes upstream whatever that body is,
    /// so that it may be handed on at once (``IncomingRequest/arrivingBody``). On the event loop.
    func forwardsAsItArrives(_ request: IncomingRequest) -> Bool
}

extension Responder {
    /// Every request is answered once its body is whole.
    package func forwardsAsItArrives(_ request: IncomingRequest) -> Bool { false }
}
