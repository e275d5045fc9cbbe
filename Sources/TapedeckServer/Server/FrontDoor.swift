import Dispatch
import Foundation
import HTTPTypes
import NIOCore
import TapedeckCore

/// The one runner every request of a server goes through, whatever carried it (HTTP/1.1, an
/// HTTP/2 stream, an intercepted tunnel): admin requests go to the admin API, every other request
/// to the mode, and the mode's decision is carried out here on the request's ``ResponseSink``.
/// Proxy authentication and malformed requests are answered earlier, by the connection
/// (``ExchangeStateMachine``).
package struct FrontDoor: Responder {
    /// Replay or recording.
    package let mode: any Mode

    package init(mode: any Mode) {
        self.mode = mode
    }

    /// Answers one request through the sink. One handed on before its body ended (a gRPC call on an
    /// HTTP/2 stream) goes to the mode at once when the mode can decide it so; otherwise it is
    /// answered as a complete request once its body is in.
    package func respond(to request: IncomingRequest, sink: ResponseSink) {
        if request.isAdmin {
            guard let stream = request.bodyStream else { return mode.admin.respond(to: request, sink: sink) }
            return stream.collect { body in mode.admin.respond(to: request.whole(body), sink: sink) }
        }
        respond(to: request, control: ControlHeaders(request.head.headerFields), sink: sink)
    }

    /// Whether the mode forwards this request whatever its body (a recording proxy's upload that
    /// no recording could match): it then decides it again, as its body arrives.
    package func forwardsAsItArrives(_ request: IncomingRequest) -> Bool {
        guard !request.isAdmin, case .forward? = mode.decideStreaming(request, control: ControlHeaders(request.head.headerFields)) else {
            return false
        }
        return true
    }

    /// Answers a request for the mode, its control headers read once.
    private func respond(to request: IncomingRequest, control: ControlHeaders, sink: ResponseSink) {
        if let upload = request.arrivingBody {
            if let decision = mode.decideStreaming(request, control: control) {
                return carryOut(decision, for: request, control: control, sink: sink)
            }
            return upload.whenEnded { whole in
                if let whole { respond(to: request.whole(whole), control: control, sink: sink) }
            }
        }
        if let stream = request.bodyStream {
            if let decision = mode.decideStreaming(request, control: control) {
                return carryOut(decision, for: request, control: control, sink: sink)
            }
            return stream.collect { body in respond(to: request.whole(body), control: control, sink: sink) }
        }
        if GRPCCall.isGRPC(contentType: request.head.headerFields[.contentType]),
           let problem = GRPCMessage.framingProblem(request.body.readableBytesView) {
            sink.send(GRPCErrorAnswer.malformed, trailers: GRPCErrorAnswer.malformedTrailers(problem))
            return
        }
        if let decision = mode.decide(request, control: control, quickly: true) {
            return carryOut(decision, for: request, control: control, sink: sink)
        }
        // A stub's regular expression may take up to its budget: decided off the event loop. The
        // sink writes on its connection's event loop from any thread.
        DispatchQueue.global().async { [self] in
            guard let decision = mode.decide(request, control: control, quickly: false) else {
                preconditionFailure("a mode decides every request when it may take its time")
            }
            carryOut(decision, for: request, control: control, sink: sink)
        }
    }

    /// What a `CONNECT host:port` becomes: a relay for a passthrough host, TLS interception with a
    /// certificate from the local CA otherwise.
    package func connectPlan(host: String, port: Int) -> ConnectPlan {
        if mode.passesThrough(host: host.lowercased()) { return .relay }
        do {
            return .intercept(try mode.authority.serverContext(for: host))
        } catch {
            return .refuse(Refusal(.badGateway, code: "tls-intercept-failed", "cannot intercept TLS for \(host): \(error)"))
        }
    }

    /// Carries out a decision, which it consumes: its payload moves on instead of being copied.
    /// `control` goes with a call played as its messages come, should it be answered whole after all.
    private func carryOut(_ decision: consuming Decision, for request: IncomingRequest, control: ControlHeaders, sink: ResponseSink) {
        switch consume decision {
        case .play(let playback, let prepared, let played, let session):
            mode.answers.serve(playback, prepared: prepared, for: played, session: session, to: request, sink: sink)
        case .unmatched(let diagnosis, let unmatched, let session):
            mode.answers.refuse(diagnosis, for: unmatched, session: session, sink: sink)
        case .refuse(let refusal):
            sink.refuse(refusal)
        case .forward(let forwarding):
            mode.recording?.forward(forwarding, sink: sink)
        case .playChat(let candidates, let session):
            mode.chats?.play(candidates, session: session, request: request, sink: sink) { whole, sink in
                respond(to: whole, control: control, sink: sink)
            }
        case .webSocket(let recording):
            mode.recording?.recordWebSocket(recording, request: request, sink: sink)
        case .tunnel(let tunnel):
            sink.tunnel(host: tunnel.host, port: tunnel.port, tls: tunnel.tls, initialBytes: tunnel.initialBytes)
        }
    }
}
