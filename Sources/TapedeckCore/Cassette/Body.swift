import Foundation

/// A message body: the decoded bytes, and how a cassette writes them.
///
/// Bodies are exact: `text` when the bytes are UTF-8, `base64` otherwise, a side
/// file above the size threshold, and `json` only when the cassette was written so
/// by hand (it is served as compact JSON).
public struct Body: Sendable, Hashable {
    /// How a body is written in a cassette.
    public enum Style: Sendable, Hashable {
        /// `text` when the bytes are valid UTF-8, `base64` otherwise, a side file when large.
        case automatic
        /// `{"json": value}`: kept for hand-written fixtures.
        case json
    }

    /// The bytes, decoded from any gzip or deflate content coding (unless ``isEncoded``).
    public var data: Data
    /// How the body is written back.
    public var style: Style
    /// Whether the bytes are still in the message's `Content-Encoding`: a gzip or deflate body that
    /// did not decode when recorded, kept as received (`"encoded": true` in the cassette) and served
    /// exactly as stored, never encoded again.
    public var isEncoded: Bool

    /// Creates a body.
    public init(_ data: Data, style: Style = .automatic) {
        self.data = data
        self.style = style
        self.isEncoded = false
    }

    /// A body kept exactly as received, still in its `Content-Encoding` because it did not decode.
    public static func stillEncoded(_ data: Data) -> Body {
        var body = Body(data)
        body.isEncoded = true
        return body
    }

    /// Creates a body from UTF-8 text.
    public init(text: String) {
        self.init(Data(text.utf8))
    }

    /// An empty body.
    public static let empty = Body(Data())

    /// Whether there are no bytes.
    public var isEmpty: Bool { data.isEmpty }

    /// The bytes as text when they are valid UTF-8.
    public var text: String? { String(validatingUTF8Data: data) }
}

extension String {
    /// Decodes UTF-8 strictly, keeping every byte (a byte order mark too): nil when the bytes are not valid UTF-8.
    init?(validatingUTF8Data data: Data) {
        guard let string = String(validating: data, as: UTF8.self) else { return nil }
        self = string
    }
}
