import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import TapedeckCore

/// The inspector's part of the admin API under `/__tapedeck/`: the page (`ui`, with its style
/// and scripts under `ui/`), the live stream (`events`), the exchanges kept (`exchanges`,
/// `exchanges/ID`) and the cassettes loaded (`cassettes`). Every rule is elsewhere; this only
/// translates HTTP.
struct InspectorEndpoints: Sendable {
    /// What the page shows.
    let inspector: Inspector

    /// Answers an inspector endpoint, asked with GET or HEAD (``AdminEndpoints`` answers other
    /// methods); false when the endpoint is not one of them.
    func respond(to endpoint: Substring, request: IncomingRequest, sink: ResponseSink) -> Bool {
        guard let asset = Self.asset(endpoint) else { return respondToData(endpoint, sink: sink) }
        sink.send(HTTPResponse(status: .ok, headerFields: Self.pageHeaders(contentType: asset.0)), body: ByteBuffer(string: asset.1))
        return true
    }

    private func respondToData(_ endpoint: Substring, sink: ResponseSink) -> Bool {
        switch endpoint {
        case "events":
            inspector.exchanges.events.listen(sink: sink)
        case "exchanges":
            let (exchanges, dropped) = inspector.exchanges.summaries()
            sendJSON(ExchangeList(exchanges: exchanges, dropped: dropped, capacity: inspector.exchanges.capacity,
                                  bodyLimit: inspector.exchanges.bodyLimit, listeners: inspector.exchanges.events.listenerCount),
                     sink: sink)
        case let path where path.hasPrefix("exchanges/"):
            let text = path.dropFirst("exchanges/".count)
            guard let id = Int(text), var exchange = inspector.exchanges.exchange(id: id) else {
                sink.send(HTTPResponse(status: .notFound, headerFields: [.contentType: "application/json"]),
                          body: ByteBuffer(bytes: JSONBodies.encode(["error": "no exchange \(text) is kept (the newest \(inspector.exchanges.capacity) are)"])))
                return true
            }
            if let diagnosis = exchange.diagnosis {
                let players = inspector.players()
                exchange.nearestRequests = diagnosis.nearest.map { miss in
                    players.lazy.compactMap { $0.interaction(cassette: miss.cassette, index: miss.index) }.first
                        .map { InspectedMessage($0.request, limit: inspector.exchanges.bodyLimit) }
                }
            }
            sendJSON(exchange, sink: sink)
        case "cassettes":
            sendJSON(CassetteOverview(inspector), sink: sink)
        default:
            return false
        }
        return true
    }

    /// The answer of `GET /__tapedeck/exchanges`.
    struct ExchangeList: Sendable, Codable {
        /// The exchanges kept, newest first.
        var exchanges: [ExchangeSummary]
        /// How many older ones were dropped.
        var dropped: Int
        /// How many are kept at most.
        var capacity: Int
        /// How many body bytes are kept per request or response.
        var bodyLimit: Int
        /// How many pages listen to the event stream now.
        var listeners: Int
    }

    /// The page and its files: content type and text.
    private static func asset(_ endpoint: Substring) -> (String, String)? {
        switch endpoint {
        case "ui", "ui/": ("text/html; charset=utf-8", InspectorPage.html)
        case "ui/style.css": ("text/css; charset=utf-8", InspectorStyle.css)
        case "ui/app.js": ("text/javascript; charset=utf-8", InspectorScript.app)
        case "ui/live.js": ("text/javascript; charset=utf-8", InspectorScript.live)
        default: nil
        }
    }

    /// The page loads nothing from elsewhere and runs no inline script.
    private static func pageHeaders(contentType: String) -> HTTPFields {
        [
            .contentType: contentType, .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
            .contentSecurityPolicy: "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; worker-src 'self'; connect-src 'self'; frame-ancestors 'none'",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
    }

    private func sendJSON(_ value: some Encodable, sink: ResponseSink) {
        sink.send(HTTPResponse(status: .ok, headerFields: [.contentType: "application/json", .cacheControl: "no-store"]),
                  body: ByteBuffer(bytes: JSONBodies.encode(value)))
    }
}
