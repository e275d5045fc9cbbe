import Foundation
import TapedeckCore

/// A message body as the inspector shows it: its kind for display and at most a bounded number
/// of its bytes, as text when they are UTF-8 and as base64 otherwise.
package struct InspectedBody: Sendable, Hashable, Codable {
    /// How the page shows the body.
    package enum Kind: String, Sendable, Hashable, Codable {
        /// No bytes.
        case empty
        /// JSON (by Content-Type): formatted.
        case json
        /// UTF-8 text.
        case text
        /// An image (by Content-Type): shown as one when kept whole.
        case image
        /// Other bytes: a hex view.
        case binary
    }

    /// How the page shows it.
    package var kind: Kind
    /// The Content-Type, if any.
    package var contentType: String?
    /// The whole body's size in bytes.
    package var size: Int
    /// Whether only the first bytes were kept.
    package var truncated: Bool
    /// The bytes kept, when they are UTF-8 (and not an image).
    package var text: String?
    /// The bytes kept, in base64, when they are not shown as text.
    package var base64: String?
    /// What read the bytes as ``text``, when not the Content-Type: `proto-descriptor-set` for gRPC
    /// messages shown as a JSON array.
    package var readBy: String?

    /// Keeps at most `limit` bytes of a body, classified by its Content-Type.
    ///
    /// - Parameter size: the whole body's size, when `body` is already cut to its first bytes.
    package init(_ body: Body, contentType: String?, limit: Int, size: Int? = nil) {
        self.contentType = contentType
        let kept = body.prefix(limit)
        self.size = max(size ?? 0, body.count)
        truncated = self.size > kept.count
        let type = contentType?.lowercased() ?? ""
        if kept.isEmpty {
            kind = .empty
        } else if type.hasPrefix("image/") {
            kind = .image
            base64 = kept.base64EncodedString()
        } else if type.hasPrefix("application/octet-stream") {
            kind = .binary
            base64 = kept.base64EncodedString()
        } else if let text = Self.text(kept, truncated: truncated), !Self.hasControlCharacters(text) {
            kind = type.contains("json") ? .json : .text
            self.text = text
        } else {
            kind = .binary
            base64 = kept.base64EncodedString()
        }
    }

    /// A gRPC body's messages as JSON, read by the descriptor set; nil when it does not read them
    /// all or only part of the body was kept.
    static func grpcMessages(_ body: Body, contentType: String?, limit: Int, schema: ProtoSchema?, path: String, isRequest: Bool) -> InspectedBody? {
        guard let schema, GRPCCall.isGRPC(contentType: contentType), body.count <= limit,
              let messages = schema.json(grpcBody: body.data, path: path, isRequest: isRequest) else { return nil }
        return InspectedBody(kind: .json, contentType: contentType, size: body.count, truncated: false,
                             text: String(decoding: messages.compactData, as: UTF8.self), readBy: "proto-descriptor-set")
    }

    private init(kind: Kind, contentType: String?, size: Int, truncated: Bool, text: String?, readBy: String?) {
        self.kind = kind
        self.contentType = contentType
        self.size = size
        self.truncated = truncated
        self.text = text
        self.readBy = readBy
    }

    /// Whether text holds control characters other than tab, line feed, form feed and carriage
    /// return: valid UTF-8 that is still bytes, better seen in hex.
    private static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].contains(scalar.value)) || scalar.value == 0x7F
        }
    }

    /// The bytes as UTF-8 text; a cut body may end inside a character, which is then dropped.
    private static func text(_ data: Data, truncated: Bool) -> String? {
        if let text = String(validating: data, as: UTF8.self) { return text }
        guard truncated else { return nil }
        for cut in 1...3 where data.count > cut {
            if let text = String(validating: data.dropLast(cut), as: UTF8.self) { return text }
        }
        return nil
    }
}

/// A request or a response as the inspector shows it: headers in order, and the body.
package struct InspectedMessage: Sendable, Hashable, Codable {
    /// The status, for a response.
    package var status: Int?
    /// The headers in order, each as `[name, value]`.
    package var headers: [[String]]
    /// The body.
    package var body: InspectedBody
    /// The trailing headers in order, each as `[name, value]`, for a response that had them.
    package var trailers: [[String]]?

    /// A request, keeping at most `limit` body bytes.
    ///
    /// - Parameter bodySize: the whole body's size, when the request's body is already cut.
    package init(_ request: CassetteRequest, limit: Int, bodySize: Int? = nil, schema: ProtoSchema? = nil) {
        headers = request.headers.map { [$0.name, $0.value] }
        let contentType = request.headers["Content-Type"]
        body = InspectedBody.grpcMessages(request.body, contentType: contentType, limit: limit, schema: schema,
                                          path: request.target.path, isRequest: true)
            ?? InspectedBody(request.body, contentType: contentType, limit: limit, size: bodySize)
    }

    /// A response, keeping at most `limit` body bytes; a streamed one shows its chunks joined.
    ///
    /// - Parameter bodySize: the whole body's size, when the response's body is already cut.
    ///   - schema, grpcPath: with both, a gRPC answer's messages are shown as JSON.
    package init(_ response: CassetteResponse, chunks: [StreamChunk]? = nil, limit: Int, bodySize: Int? = nil,
                 schema: ProtoSchema? = nil, grpcPath: String? = nil) {
        status = response.status
        headers = response.headers.map { [$0.name, $0.value] }
        trailers = response.trailers.map { $0.map { [$0.name, $0.value] } }
        var body = response.body
        var size = bodySize
        if let chunks, body.isEmpty {
            var joined = Data()
            for chunk in chunks where joined.count <= limit { joined.append(chunk.data) }
            body = Body(joined)
            size = bodySize ?? chunks.reduce(0) { $0 + $1.data.count }
        }
        let contentType = response.headers["Content-Type"]
        self.body = grpcPath.flatMap {
            InspectedBody.grpcMessages(body, contentType: contentType, limit: limit, schema: schema, path: $0, isRequest: false)
        } ?? InspectedBody(body, contentType: contentType, limit: limit, size: size)
    }
}
