// The key names of the cassette format, in one place. The `Codable` conformances
// (CassetteCoding.swift) read and write with these, and so does the fast `InteractionWriter`,
// so a new field is added here once and both sides see it.

/// The members of a cassette file.
enum CassetteCodingKey: String, CodingKey { case version, meta, interactions, stubs }

/// The members of one interaction.
enum InteractionCodingKey: String, CodingKey { case recordedAt, request, response, timing, delayMs, chunks, httpVersion, websocket }

/// The members of a recorded request.
enum RequestCodingKey: String, CodingKey { case method, url, headers, body }

/// The members of a recorded response.
enum ResponseCodingKey: String, CodingKey { case status, headers, body, trailers }

/// The members of one streamed chunk: its time and its bytes as text or base64.
enum ChunkCodingKey: String, CodingKey { case atMs, text, base64 }

/// The members of one message of a gRPC body.
enum GRPCMessageCodingKey: String, CodingKey { case base64, compressed, atMs }

/// The members of one WebSocket message: its side, time, and exactly one of text, base64 or close (with a reason).
enum WebSocketMessageCodingKey: String, CodingKey { case from, atMs, text, base64, close, reason }

/// The members of an interaction's timing.
enum TimingCodingKey: String, CodingKey { case firstByteMs, totalMs }

/// The members of a body: exactly one form, and the `encoded` mark beside it.
enum BodyCodingKey: String, CodingKey, CaseIterable {
    case text, base64, json, file, grpc
    /// Not a form but a mark beside one: the bytes are still in the Content-Encoding.
    case encoded

    /// The forms a body is written in, exactly one per body.
    static let forms: [BodyCodingKey] = [.text, .base64, .json, .file, .grpc]
}
