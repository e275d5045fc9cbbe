import NIOCore
import NIOSSL

/// Answers the requests a server receives: the replay responder and the recording responder.
package protocol Responder: Sendable {
    /// Answers one complete request through the sink, now or later, on any thread.
    func respond(to request: IncomingRequest, sink: ResponseSink)

    /// Decides what a `CONNECT host:port` tunnel becomes.
    func connectPlan(host: String, port: Int) -> ConnectPlan
}

/// What a `CONNECT` request turns into.
package enum ConnectPlan: Sendable {
    /// Answer 200, then intercept TLS with this server context and serve HTTP/1.1 inside.
    case intercept(NIOSSLContext)
    /// Answer 200, then relay bytes untouched to the host (recording proxy passthrough).
    case relay
    /// Refuse with a status and a reason.
    case refuse(status: Int, reason: String)
}
