import Foundation

/// A request body.
package struct HARPostData: Sendable, Hashable, Codable {
    /// The media type.
    package var mimeType: String?
    /// The body as text, or base64 when `encoding` is `base64` (an extension several tools use).
    package var text: String?
    /// Form parameters, when a tool gave them instead of the text.
    package var params: [HARParam]?
    /// `base64` when `text` is base64.
    package var encoding: String?

    private enum CodingKeys: String, CodingKey { case mimeType, text, params, encoding }

    /// Reads a body; `mimeType` may be an array (Polly.js), the first value is kept.
    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = try container.decodeLenientString(forKey: .mimeType)
        text = try container.decodeIfPresent(String.self, forKey: .text)
        params = try container.decodeIfPresent([HARParam].self, forKey: .params)
        encoding = try container.decodeIfPresent(String.self, forKey: .encoding)
    }

    /// Creates a body.
    package init(mimeType: String, text: String, params: [HARParam]? = nil, encoding: String? = nil) {
        self.mimeType = mimeType
        self.text = text
        self.params = params
        self.encoding = encoding
    }
}
