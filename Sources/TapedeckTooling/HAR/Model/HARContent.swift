import Foundation

/// A response body: decoded text, or base64 when `encoding` is `base64`.
package struct HARContent: Sendable, Hashable, Codable {
    /// The decoded size in bytes.
    package var size: Int?
    /// Bytes saved by compression.
    package var compression: Int?
    /// The media type.
    package var mimeType: String?
    /// The body text (decoded from any content coding), or base64.
    package var text: String?
    /// `base64` when `text` is base64.
    package var encoding: String?
    /// Tapedeck's custom field: the body is still in its content coding (such as br), not decoded.
    package var stillEncoded: Bool?
    /// Polly.js's custom field (versions 4.2.1 to 5): `text` is hex, or a JSON array of hex chunks.
    package var isBinary: Bool?

    private enum CodingKeys: String, CodingKey {
        case size, compression, mimeType, text, encoding
        case stillEncoded = "_stillEncoded"
        case isBinary = "_isBinary"
    }

    /// Reads content; `mimeType` may be an array (Polly.js), the first value is kept.
    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decodeIfPresent(Int.self, forKey: .size)
        compression = try container.decodeIfPresent(Int.self, forKey: .compression)
        mimeType = try container.decodeLenientString(forKey: .mimeType)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
        stillEncoded = try container.decodeIfPresent(Bool.self, forKey: .stillEncoded)
        isBinary = try container.decodeIfPresent(Bool.self, forKey: .isBinary)
    }

    /// Creates content.
    package init(size: Int, compression: Int?, mimeType: String, text: String?, encoding: String?, stillEncoded: Bool?) {
        self.size = size
        self.compression = compression
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
        self.stillEncoded = stillEncoded
    }
}
