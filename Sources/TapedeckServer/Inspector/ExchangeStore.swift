import Foundation
import TapedeckCore

/// The latest exchanges a server answered, for the inspector: a bounded log (``BoundedLog``) of
/// each one's request and response, redacted as a cassette holds them and with at most
/// ``bodyLimit`` bytes of each body, so memory stays bounded whatever the traffic. Each new
/// exchange is announced on ``events``.
public final class ExchangeStore: Sendable {
    /// How many exchanges are kept by default.
    public static let defaultCapacity = 200
    /// How many bytes of each body are kept by default.
    public static let defaultBodyLimit = 64 * 1024

    /// The most body bytes kept per request or response.
    public let bodyLimit: Int
    /// The live stream of new exchanges.
    public let events: InspectorEvents
    private let log: BoundedLog<InspectedExchange>
    private let lastID = Locked(0)
    private let redaction: ExchangeRedaction

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - redaction: applied to what is kept, as to what a cassette holds (the replay server uses the defaults).
    ///   - secrets: their live values are kept as `<NAME>`.
    public init(capacity: Int = ExchangeStore.defaultCapacity, bodyLimit: Int = ExchangeStore.defaultBodyLimit,
                redaction: RedactionRules = .defaults, secrets: Secrets = .none, events: InspectorEvents = InspectorEvents()) {
        log = BoundedLog(capacity: capacity)
        self.bodyLimit = max(0, bodyLimit)
        self.events = events
        self.redaction = ExchangeRedaction(redactor: Redactor(rules: redaction), secrets: secrets)
    }

    /// The most exchanges kept.
    public var capacity: Int { log.capacity }

    /// Keeps an exchange and announces it; returns its id.
    ///
    /// - Parameters:
    ///   - entry: its journal entry.
    ///   - request: the request as received (or as recorded); redacted here unless `isClean`.
    ///   - response: the answer, if the server sent one from a cassette, a stub or upstream.
    ///   - status: the status sent when there is no response to keep (the unmatched status).
    ///   - diagnosis: why nothing was served, for unmatched and exhausted requests.
    ///   - isClean: the exchange is already what the cassette holds (redacted when recorded).
    @discardableResult
    public func add(_ entry: JournalEntry, request: CassetteRequest, response: CassetteResponse? = nil,
                    chunks: [StreamChunk]? = nil, status: Int? = nil, diagnosis: MatchDiagnosis? = nil, isClean: Bool = false) -> Int {
        var (request, response, removed) = (request, response, [String]())
        if !isClean { (request, response, removed) = redaction.clean(request: request, response: response) }
        let id = lastID.withLock { last in
            last += 1
            return last
        }
        let summary = ExchangeSummary(id: id, entry: entry, status: response?.status ?? status)
        let exchange = InspectedExchange(
            summary: summary, request: InspectedMessage(request, limit: bodyLimit),
            response: response.map { InspectedMessage($0, chunks: chunks, limit: bodyLimit) },
            diagnosis: diagnosis.map { diagnosis in
                // The diagnosis quotes the request's body: cut to the limit too.
                var cut = request
                if cut.body.data.count > bodyLimit { cut.body = Body(Data(cut.body.data.prefix(bodyLimit))) }
                return redaction.clean(diagnosis, request: cut, removed: removed)
            })
        log.append(exchange)
        if events.listenerCount > 0 {
            events.publish(event: "exchange", data: String(decoding: Self.compact(summary), as: UTF8.self), id: id)
        }
        return id
    }

    /// The exchanges kept, newest first, and how many older ones were dropped.
    public func summaries() -> (exchanges: [ExchangeSummary], dropped: Int) {
        let (kept, dropped) = log.snapshot()
        return (kept.map(\.summary).sorted { $0.id > $1.id }, dropped)
    }

    /// The exchange with this id, while it is kept.
    public func exchange(id: Int) -> InspectedExchange? {
        log.snapshot().entries.last { $0.summary.id == id }
    }

    /// Forgets every exchange (ids go on increasing) and tells the pages.
    public func reset() {
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
