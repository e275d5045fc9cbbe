import Foundation
import Logging
import NIOCore
@_spi(Internals) import TapedeckCore

/// Carries out the recording proxy's decisions that reach the live service: forwards an exchange
/// (``Forwarding``) or opens a WebSocket conversation upstream (``WebSocketRecording``), and hands
/// each finished one to the recorder through one path, the recording queue (redacted and saved
/// off the event loop). Counts what is under way, so that stopping waits for it.
package final class RecordingRunner: Sendable {
    private let forwarder: UpstreamForwarder
    /// How recorded answers' large bodies are spooled to the cassette's side files.
    private let spooling: LargeBodySpooling
    private let inFlight = InFlightExchanges()
    private let queue: RecordingQueue
    private let exchanges: ExchangeStore?
    private let secrets: Secrets
    private let logger: Logger

    /// - Parameter contract: the API document each recorded exchange is checked against; what
    ///   breaks it goes to the journal and the inspector, and a warning line each.
    init(recorder: Recorder, forwarder: UpstreamForwarder, answers: PlaybackAnswers, secrets: Secrets, contract: APIContract?,
         logger: Logger) {
        self.forwarder = forwarder
        spooling = LargeBodySpooling(recorder: recorder)
        exchanges = answers.exchanges
        self.secrets = secrets
        self.logger = logger
        queue = RecordingQueue { [recorder, journal = answers.journal, exchanges = answers.exchanges, inFlight] exchange in
            defer { inFlight.leave() }
            do {
                let now = Timestamp.now()
                let recorded = try recorder.record(exchange.interaction(recordedAt: now))
                var entry = JournalEntry(request: exchange.request, outcome: .recorded, time: now)
                if let violations = contract?.violations(of: recorded.request, answeredWith: recorded).map(\.line), !violations.isEmpty {
                    entry.violations = violations
                    let request = "\(recorded.request.method) \(recorded.request.url)"
                    for line in violations { logger.warning("recorded \(request) breaks the API document: \(line)") }
                }
                journal.append(entry)
                // The inspector shows what the cassette holds: redacted, secrets as placeholders.
                exchanges?.add(entry, request: recorded.request, response: recorded.response, chunks: recorded.chunks, isClean: true)
            } catch {
                logger.error("cannot record \(exchange.request.method) \(secrets.conceal(exchange.request).url): \(error)")
            }
        }
    }

    /// How many exchanges are under way: being forwarded, or finished and still being hashed, redacted or saved.
    var running: Int { inFlight.running }

    /// Waits for the exchanges under way.
    func waitForAll() async {
        await inFlight.waitForAll()
    }

    /// Forwards a request and streams its answer back; the finished exchange is recorded, or, for
    /// a passthrough host, only shown in the inspector.
    func forward(_ forwarding: Forwarding, sink: ResponseSink) {
        inFlight.enter()
        forwarder.forward(forwarding.request, as: forwarding.cassetteRequest, target: forwarding.target, sink: sink,
                          spooling: forwarding.record ? spooling : nil) { [self] result in
            switch result {
            case .success(let exchange) where forwarding.record:
                queue.add(exchange)
            case .success(let exchange):
                // Passed on unrecorded (a passthrough host): the inspector lists it, redacted by the store.
                exchanges?.add(JournalEntry(request: exchange.request, outcome: .forwarded), request: exchange.request,
                               response: CassetteResponse(status: exchange.status, headers: exchange.headers))
                inFlight.leave()
            case .failure(let cause):
                if forwarding.record {
                    let request = forwarding.cassetteRequest
                    logger.warning("\(IncompleteExchange.logLine(method: request.method, url: secrets.conceal(request).url, cause: cause))")
                }
                inFlight.leave()
            }
        }
    }

    /// Opens the WebSocket upstream, relays the conversation, and records it once it ends.
    func recordWebSocket(_ recording: WebSocketRecording, request: IncomingRequest, sink: ResponseSink) {
        inFlight.enter()
        sink.recordWebSocket(recording, request: request) { [self] exchange in
            guard let exchange else { return inFlight.leave() }
            queue.add(exchange)
        }
    }
}
