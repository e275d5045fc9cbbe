import Foundation
import TapedeckCore

/// One exchange.
package struct HAREntry: Sendable, Hashable, Codable {
    /// When the request started, ISO 8601.
    package var startedDateTime: String
    /// The total time in milliseconds.
    package var time: Double
    /// The request.
    package var request: HARRequest
    /// The response.
    package var response: HARResponse
    /// Cache information; always an empty object here.
    package var cache: HAREmpty?
    /// The phases of the exchange in milliseconds; -1 when not known.
    package var timings: HARTimings?
    /// Tapedeck's custom field: the cassette's `recordedAt`, kept exactly.
    package var recordedAt: String?
    /// Tapedeck's custom field: the hand-set delay.
    package var delayMs: Double?
    /// Tapedeck's custom field: a streamed response's chunks and their offsets.
    package var chunks: [StreamChunk]?
    /// Tapedeck's custom field: the cassette had no timing (HAR requires numbers).
    package var noTiming: Bool?
    /// Tapedeck's custom field: the cassette had no `httpVersion` (HAR requires one).
    package var noHTTPVersion: Bool?
    /// Chrome's field: a WebSocket conversation's messages.
    package var webSocketMessages: [HARWebSocketMessage]?

    private enum CodingKeys: String, CodingKey {
        case startedDateTime, time, request, response, cache, timings
        case recordedAt = "_recordedAt", delayMs = "_delayMs", chunks = "_chunks", noTiming = "_noTiming"
        case noHTTPVersion = "_noHTTPVersion", webSocketMessages = "_webSocketMessages"
    }

    /// Creates an entry.
    package init(startedDateTime: String, time: Double, request: HARRequest, response: HARResponse,
                timings: HARTimings?, recordedAt: String? = nil, delayMs: Double? = nil,
                chunks: [StreamChunk]? = nil, noTiming: Bool? = nil, noHTTPVersion: Bool? = nil,
                webSocketMessages: [HARWebSocketMessage]? = nil) {
        self.webSocketMessages = webSocketMessages
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = HAREmpty()
        self.timings = timings
        self.recordedAt = recordedAt
        self.delayMs = delayMs
        self.chunks = chunks
        self.noTiming = noTiming
        self.noHTTPVersion = noHTTPVersion
    }
}
