import NIOCore
import NIOHTTP1
import TapedeckCore

/// A recorded response ready for the wire, computed once at load: the head with a correct
/// Content-Length, and the body encoded again with gzip or deflate when it was recorded so.
public struct PreparedResponse: Sendable {
    /// The status and headers.
    public let head: HTTPResponseHead
    /// The whole body as sent (empty for a streamed response).
    public let body: ByteBuffer
    /// The pieces of a streamed response, in order; nil for an ordinary body.
    public let chunks: [ByteBuffer]?

    /// Prepares an interaction's response.
    public init(_ interaction: Interaction) throws(ContentCodingError) {
        let response = interaction.response
        var headers = HTTPHeaders()
        // A recorded HEAD or 304 answer keeps its Content-Length: it describes a body never sent.
        let keepsLength = interaction.request.method == "HEAD" || response.status == 304
        for field in response.headers where !HeaderList.isHopByHop(field.name)
            && (keepsLength || !field.name.caseInsensitiveEquals("Content-Length")) {
            headers.add(name: field.name, value: field.value)
        }
        let status = HTTPResponseStatus(statusCode: response.status)
        if let chunks = interaction.chunks, response.contentCoding == nil {
            self.chunks = chunks.map { ByteBuffer(bytes: $0.data) }
            body = ByteBuffer()
        } else {
            let plain = interaction.responseBodyData
            let wire = try response.contentCoding.map { coding throws(ContentCodingError) in try coding.encode(plain) } ?? plain
            body = ByteBuffer(bytes: wire)
            chunks = nil
            if Self.mayHaveBody(status.code) && !keepsLength { headers.add(name: "Content-Length", value: String(wire.count)) }
        }
        head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    }

    private init(head: HTTPResponseHead, body: ByteBuffer, chunks: [ByteBuffer]?) {
        self.head = head
        self.body = body
        self.chunks = chunks
    }

    /// The same response with one more header (`Tapedeck-Warning: expired`, say).
    public func adding(header name: String, value: String) -> PreparedResponse {
        var head = head
        head.headers.add(name: name, value: value)
        return PreparedResponse(head: head, body: body, chunks: chunks)
    }

    private static func mayHaveBody(_ code: UInt) -> Bool { code >= 200 && code != 204 && code != 304 }
}
