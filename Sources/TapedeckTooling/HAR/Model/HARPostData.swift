import Foundation

/// A request body.
public struct HARPostData: Sendable, Hashable, Codable {
    /// The media type.
    public var mimeType: String?
    /// The body as text, or base64 when `encoding` is `base64` (an extension several tools use).
    public var text: String?
    /// Form parameters, when a tool gave them instead of the text.
    public var params: [HARParam]?
    /// `base64` when `text` is base64.
    public var encoding: String?

    /// Creates a body.
    public init(mimeType: String, text: String, params: [HARParam]? = nil, encoding: String? = nil) {
        self.mimeType = mimeType
        self.text = text
        self.params = params
        self.encoding = encoding
    }
}
