import Foundation
@_spi(Internals) import TapedeckCore

/// The latest exchanges a server answered, for the inspector: a bounded log (``BoundedLog``) of
/// each one's request and response, with at most ``bodyLimit`` bytes of each body, so memory stays
/// bounded whatever the traffic; shown redacted, as a cassette holds them. Each new exchange is
/// announced on ``events`` (event `exchange`), and so is each change to one kept (`update`: a
/// played chat's messages, a WebSocket conversation, once they ended).
///
/// Adding is cheap, for it happens on the event loop of every request: the request is redacted
/// there only when its body must be cut (redaction needs the whole body); otherwise the exchange
/// is kept as it came (a played response shares the cassette's storage) and is redacted and
/// turned into JSON when a page asks for it.
package final class ExchangeStore: Sendable {
    /// How many exchanges are kept by default.
    package static let defaultCapacity = 200
    /// How many bytes of each body are kept by default.
    package static let defaultBodyLimit = Body.logLimit

    /// The most body bytes kept per request or response.
    package let bodyLimit: Int
    /// Reads gRPC messages as JSON, when a descriptor set was given.
    private let protoSchema: ProtoSchema?
    /// The live stream of new exchanges.
    package let events: InspectorEvents
    private let log: BoundedLog<KeptExchange>
    private let redaction: ExchangeRedaction

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - redaction: applied to what is shown, as to what a cassette holds (the replay server uses the defaults).
    ///   - secrets: their live values are shown as `<NAME>`.
    ///   - protoSchema: reads gRPC messages as JSON (`--proto-descriptor-set`).
    package init(capacity: Int = ExchangeStore.defaultCapacity, bodyLimit: Int = ExchangeStore.defaultBodyLimit,
                redaction: RedactionRules = .defaults, secrets: Secrets = .none, events: InspectorEvents = InspectorEvents(),
                protoSchema: ProtoSchema? = nil) {
        self.protoSchema = protoSchema
        log = BoundedLog(capacity: capacity)
        self.bodyLimit = max(0, bodyLimit)
        self.events = events
        self.redaction = ExchangeRedaction(redactor: Redactor(rules: redaction), secrets: secrets)
    }

    /// The most exchanges kept.
    package var capacity: Int { log.capacity }

    /// Keeps an exchange and announces it; returns its id.
    ///
    /// - Parameters:
    ///   - entry: its journal entry.
    ///   - request: the request as received (or as recorded).
    ///   - response: the answer, if the server sent one from a cassette, a stub or upstream.
    ///   - status: the status sent when there is no response to keep (the unmatched status).
    ///   - diagnosis: why nothing was served, for unmatched and exhausted requests.
    ///   - isClean: the exchange is already what the cassette holds (redacted when recorded).
    @discardableResult
    package func add(_ entry: JournalEntry, request: CassetteRequest, response: CassetteResponse? = nil,
                    chunks: [StreamChunk]? = nil, status: Int? = nil, diagnosis: MatchDiagnosis? = nil, isClean: Bool = false) -> Int {
        // A page listening gets the summary; the exchange itself moves into the log.
        let isListened = events.listenerCount > 0
        var announced: ExchangeSummary?
        let id = log.append(keep(entry, request: request, response: response, chunks: chunks, status: status, diagnosis: diagnosis,
                                 isClean: isClean)) { kept, id in
            kept.summary.id = id
            if isListened { announced = kept.summary }
        }
        if let announced { announce(announced, as: "exchange", id: id) }
        return id
    }

    /// Tells the pages listening of an exchange, by its summary as shown.
    private func announce(_ summary: ExchangeSummary, as event: String, id: Int? = nil) {
        events.publish(event: event, data: String(decoding: Self.compact(shown(summary)), as: UTF8.self), id: id)
    }

    /// Changes exchange `id`, if it is still kept, and announces the change to the pages
    /// listening (event `update`, with the summary; a page showing that exchange fetches it again).
    private func update(id: Int, _ change: (inout KeptExchange) -> Void) {
        var updated: ExchangeSummary?
        log.update(where: { $0.summary.id == id }) { kept in
            change(&kept)
            updated = kept.summary
        }
        if let updated, events.listenerCount > 0 { announce(updated, as: "update") }
    }

    /// What is kept of an exchange: its bodies cut to the limit, redacted now only when the request's is cut.
    private func keep(_ entry: JournalEntry, request: CassetteRequest, response: CassetteResponse?, chunks: [StreamChunk]?,
                      status: Int?, diagnosis: MatchDiagnosis?, isClean: Bool) -> KeptExchange {
        var kept = KeptExchange(summary: ExchangeSummary(id: 0, entry: entry, status: response?.status ?? status),
                                request: request, response: response, chunks: chunks, isClean: isClean)
        kept.requestSize = request.body.count
        kept.responseSize = response?.body.count
        if !isClean && kept.requestSize > bodyLimit {
            (kept.request, kept.response, kept.removed) = redaction.clean(request: request, response: response)
            kept.isClean = true
        }
        kept.request.body.cut(to: bodyLimit)
        kept.response?.body.cut(to: bodyLimit)
        if let chunks, kept.response?.body.isEmpty == true {
            // A streamed answer: its pieces up to the limit.
            kept.responseSize = chunks.reduce(0) { $0 + $1.data.count }
            var total = 0
            kept.chunks = Array(chunks.prefix { chunk in
                defer { total += chunk.data.count }
                return total < bodyLimit
            })
        }
        if var diagnosis {
            // The diagnosis quotes the request, whole: it is quoted again from the kept request when shown.
            diagnosis.request.headers = [:]
            diagnosis.request.body = nil
            kept.diagnosis = diagnosis
        }
        return kept
    }

    /// Puts the request body its client had sent by the end into exchange `id`: a played chat is
    /// kept when it is chosen, with the messages sent by then. Redacted now when the exchange is
    /// kept redacted already or the body must be cut, as ``add(_:request:response:chunks:status:diagnosis:isClean:)`` does.
    package func requestEnded(id: Int, body: Body) {
        update(id: id) { kept in
            var request = kept.request
            request.body = body
            kept.requestSize = body.count
            if kept.isClean {
                kept.request = redaction.clean(request: request, response: nil).0
            } else if body.count > bodyLimit {
                (kept.request, kept.response, kept.removed) = redaction.clean(request: request, response: kept.response)
                kept.isClean = true
            } else {
                kept.request = request
            }
            kept.request.body.cut(to: bodyLimit)
        }
    }

    /// Adds the WebSocket conversation of exchange `id` once its connection ended.
    package func conversationEnded(id: Int, _ conversation: InspectedConversation) {
        update(id: id) { $0.conversation = conversation }
    }

    /// The exchanges kept, newest first, and how many older ones were dropped.
    package func summaries() -> (exchanges: [ExchangeSummary], dropped: Int) {
        let (kept, dropped) = log.snapshot()
        return (kept.map { shown($0.summary) }.sorted { $0.id > $1.id }, dropped)
    }

    /// A summary as shown: its URL redacted (the journal keeps it as received).
    private func shown(_ summary: ExchangeSummary) -> ExchangeSummary {
        var summary = summary
        summary.entry.url = redaction.clean(url: summary.entry.url)
        return summary
    }

    /// The exchange with this id, redacted, while it is kept.
    package func exchange(id: Int) -> InspectedExchange? {
        guard var kept = log.snapshot().entries.last(where: { $0.summary.id == id }) else { return nil }
        if !kept.isClean { (kept.request, kept.response, kept.removed) = redaction.clean(request: kept.request, response: kept.response) }
        return InspectedExchange(
            summary: shown(kept.summary),
            request: InspectedMessage(kept.request, limit: bodyLimit, bodySize: kept.requestSize, schema: protoSchema),
            response: kept.response.map {
                InspectedMessage($0, chunks: kept.chunks, limit: bodyLimit, bodySize: kept.responseSize,
                                 schema: protoSchema, grpcPath: kept.request.target.path)
            },
            diagnosis: kept.diagnosis.map { redaction.clean($0, request: kept.request, removed: kept.removed) },
            conversation: kept.conversation.map(redaction.clean))
    }

    /// Forgets every exchange (ids go on increasing) and tells the pages.
    package func reset() {
        log.reset()
        events.publish(event: "reset", data: "{}")
    }

    /// One line of JSON, for an event's data.
    static func compact(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}

/// What the store keeps of one exchange until a page asks for it.
struct KeptExchange: Sendable {
    /// The list entry.
    var summary: ExchangeSummary
    /// The request, its body cut to the limit.
    var request: CassetteRequest
    /// The answer, its body cut to the limit.
    var response: CassetteResponse?
    /// A streamed answer's pieces (shared with the cassette).
    var chunks: [StreamChunk]?
    /// The diagnosis, without its quote of the request.
    var diagnosis: MatchDiagnosis?
    /// The WebSocket conversation, once its connection ended.
    var conversation: InspectedConversation?
    /// Whether request and response are already redacted.
    var isClean: Bool
    /// The values redaction removed, when it ran as the exchange was kept.
    var removed: [String] = []
    /// The whole request body's size.
    var requestSize = 0
    /// The whole response body's size.
    var responseSize: Int?
}
