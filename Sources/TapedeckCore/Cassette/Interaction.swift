import Foundation

/// One recorded exchange: a request, its response, and how long it took.
public struct Interaction: Sendable, Hashable {
    /// When the response finished, as ISO 8601 UTC with milliseconds.
    public var recordedAt: String?
    /// The request.
    public var request: CassetteRequest
    /// The response; its body is empty when ``chunks`` carries a stream.
    public var response: CassetteResponse
    /// Measured at the proxy: time to the first and to the last response byte.
    public var timing: Timing?
    /// A hand-set latency in milliseconds that wins over the latency option.
    public var delayMs: Double?
    /// A streamed response body (such as `text/event-stream`) with the time offset of each piece.
    public var chunks: [StreamChunk]?
    /// The HTTP version the exchange was recorded over, `"1.1"` or `"2"`: informational, never matched.
    public var httpVersion: String?
    /// A WebSocket conversation after the upgrade this interaction answered with 101 (SPEC section 13).
    public var websocket: [WebSocketMessage]?

    /// Creates an interaction.
    public init(recordedAt: String? = nil, request: CassetteRequest, response: CassetteResponse,
                timing: Timing? = nil, delayMs: Double? = nil, chunks: [StreamChunk]? = nil, httpVersion: String? = nil,
                websocket: [WebSocketMessage]? = nil) {
        self.httpVersion = httpVersion
        self.websocket = websocket
        self.recordedAt = recordedAt
        self.request = request
        self.response = response
        self.timing = timing
        self.delayMs = delayMs
        self.chunks = chunks
    }

    /// The whole response body: the stored body, or the chunks joined.
    public var responseBodyData: Data {
        guard let chunks else { return response.body.data }
        return chunks.reduce(into: Data()) { $0.append($1.data) }
    }
}

/// Response timing measured at the proxy, in milliseconds from sending the request upstream.
public struct Timing: Sendable, Hashable {
    /// Until the first response byte (the head).
    public var firstByteMs: Double
    /// Until the last response byte.
    public var totalMs: Double

    /// Creates a timing.
    public init(firstByteMs: Double, totalMs: Double) {
        self.firstByteMs = firstByteMs
        self.totalMs = totalMs
    }
}

/// One piece of a streamed response and when it arrived, in milliseconds after the head.
public struct StreamChunk: Sendable, Hashable {
    /// The offset from the response head.
    public var atMs: Double
    /// The bytes.
    public var data: Data

    /// Creates a chunk.
    public init(atMs: Double, data: Data) {
        self.atMs = atMs
        self.data = data
    }
}
