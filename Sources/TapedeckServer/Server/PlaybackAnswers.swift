import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import TapedeckCore

/// How both servers answer what the core's player decided, and what they note of it: the
/// journal entry, the expiry warning, and the unmatched status with its diagnosis. The replay
/// server and the recording proxy (for what its cassette already holds) both answer here.
/// A class: the front door reaches it through its mode for every request, and a reference is
/// what that hands over (the struct it was cost a copy and a release of every field per request,
/// about 1.5 % of replay's CPU).
package final class PlaybackAnswers: Sendable {
    /// The request journal of the admin API.
    let journal: Journal
    /// The unmatched requests of the admin API.
    let unmatched: UnmatchedLog
    /// The status of an unmatched request (599 unless configured).
    let unmatchedStatus: HTTPResponse.Status
    /// Warned of each expired interaction served.
    let logger: Logger
    /// The exchanges the inspector shows; nil when the admin API is off.
    let exchanges: ExchangeStore?
    /// The one redaction rule of every view of requests: the inspector's, the 599 body, the
    /// unmatched log, the journal and verification.
    let redaction: ExchangeRedaction

    /// - Parameters:
    ///   - redaction: what the inspector blots out of the exchanges it keeps (the recording proxy's rules).
    ///   - secrets: kept as `<NAME>` by the inspector.
    ///   - protoSchema: reads gRPC messages as JSON for the inspector.
    init(configuration: ServerConfiguration, logger: Logger, redaction: RedactionRules = .defaults, secrets: Secrets = .none,
         protoSchema: ProtoSchema? = nil) {
        journal = Journal(capacity: configuration.journalCapacity)
        unmatched = UnmatchedLog()
        exchanges = configuration.adminEnabled ? ExchangeStore(redaction: redaction, secrets: secrets, protoSchema: protoSchema) : nil
        self.redaction = ExchangeRedaction(redactor: Redactor(rules: redaction), secrets: secrets)
        unmatchedStatus = HTTPResponse.Status(code: configuration.unmatchedStatus, reasonPhrase: "Tapedeck No Match")
        self.logger = logger
    }

    /// Notes a played interaction in the journal and the inspector, warning when it expired;
    /// returns the inspector's id for it. A stub's fault is kept with the response only when the
    /// client gets its head (`truncate`): the others send no status.
    @discardableResult
    func note(_ playback: Playback, for played: CassetteRequest, session: String) -> Int? {
        let entry = JournalEntry(played: playback, request: played, session: session)
        let response = playback.fault.map(\.sendsHead) ?? true ? playback.interaction.response : nil
        let id = exchanges?.add(entry, request: played, response: response, chunks: response == nil ? nil : playback.interaction.chunks)
        journal.append(entry)
        if playback.isExpired { logger.warning("\(ExpiryOptions.warning(for: playback))") }
        return id
    }

    /// Serves a played interaction, noting it.
    func serve(_ playback: Playback, prepared: PreparedResponse, for played: CassetteRequest, session: String,
               to request: IncomingRequest, sink: ResponseSink) {
        let id = note(playback, for: played, session: session)
        guard let conversation = playback.conversation else { return sink.serve(playback, prepared: prepared, to: request) }
        let (exchanges, logger, url) = (exchanges, logger, played.url)
        sink.playWebSocket(conversation, answer: prepared.head.headers, to: request) { played in
            if let id { exchanges?.conversationEnded(id: id, InspectedConversation(played: played)) }
            if let departure = played.departure {
                logger.warning("\(Self.departureLine(departure, of: playback, url: url))")
            }
        }
    }

    /// Answers a request nothing matched with the unmatched status and the diagnosis as JSON,
    /// redacted as the inspector shows it (the client's credentials are not echoed into logs).
    func refuse(_ diagnosis: MatchDiagnosis, for request: CassetteRequest, session: String, sink: ResponseSink) {
        var entry = JournalEntry(request: request, session: session, outcome: diagnosis.reason == .exhausted ? .exhausted : .unmatched)
        entry.violations = diagnosis.violations.flatMap { $0.isEmpty ? nil : $0 }
        let (kept, _, removed) = redaction.clean(request: request, response: nil)
        let shown = redaction.clean(diagnosis, request: kept, removed: removed)
        unmatched.append(shown)
        let isGRPC = GRPCCall.isGRPC(request)
        exchanges?.add(entry, request: request, status: isGRPC ? 200 : Int(unmatchedStatus.code), diagnosis: diagnosis)
        journal.append(entry)
        if isGRPC {
            sink.send(GRPCErrorAnswer.noMatch, trailers: GRPCErrorAnswer.trailers(for: shown))
            return
        }
        sink.send(HTTPResponse(status: unmatchedStatus, headerFields: [.contentType: "application/json", .tapedeckError: diagnosis.reason.rawValue]),
                  body: ByteBuffer(bytes: JSONBodies.encode(shown)))
    }

    /// The log line of a WebSocket client that left its recording.
    static func departureLine(_ departure: WebSocketConversation.Departure, of playback: Playback, url: String) -> String {
        let received = WebSocketMessage(from: .client, atMs: 0, content: departure.received).summary()
        let expected = departure.expected.map { "message \(departure.index), \($0.summary())" } ?? "the end of the conversation"
        return "WebSocket \(url) (\(playback.source)) left the recording: \(received) where it holds \(expected)"
    }
}
