import Foundation

/// A message body: the decoded bytes, and how a cassette writes them.
///
/// Bodies are exact: `text` when the bytes are UTF-8, `base64` otherwise, a side file above the
/// size threshold, and `json` only when the cassette was written so by hand (it is served as
/// compact JSON).
///
/// A body read from a side file, or recorded into one, stays on disk: ``file`` says where, and
/// ``data`` reads the file only when asked. The server sends such a body from the file in pieces.
public struct Body: Sendable {
    /// How a body is written in a cassette.
    public enum Style: Sendable, Hashable {
        /// `text` when the bytes are valid UTF-8, `base64` otherwise, a side file when large.
        case automatic
        /// `{"json": value}`: kept for hand-written fixtures.
        case json
        /// `{"grpc": [messages]}`: a gRPC body, written as its length-prefixed messages (`GRPCMessage`),
        /// each held decompressed with its compressed flag kept (`GRPCCall.decompressed(_:encoding:)`).
        case grpc
    }

    /// Where the bytes are.
    private enum Storage: Sendable {
        case bytes(Data)
        case file(BodyFile)
    }

    private var storage: Storage
    /// How the body is written back.
    public var style: Style
    /// Whether the bytes are still in the message's `Content-Encoding`: a gzip or deflate body that
    /// did not decode when recorded, kept as received (`"encoded": true` in the cassette) and served
    /// exactly as stored, never encoded again.
    public var isEncoded: Bool
    /// A gRPC body's message times (`atMs`; not part of equality): a streamed answer's, only on its
    /// way between a cassette file and ``Interaction/chunks`` (``GRPCCall/pacedAsChunks(_:)``),
    /// counted from its first byte; a request's, for a call the recording proxy forwarded as it
    /// arrived, counted from the request's start (as ``Timing/firstByteMs`` is).
    package var messageTimes: [Double]?

    /// Creates a body.
    public init(_ data: Data, style: Style = .automatic) {
        storage = .bytes(data)
        self.style = style
        self.isEncoded = false
    }

    /// Creates a body whose bytes stay in a side file until read.
    public init(file: BodyFile) {
        storage = .file(file)
        style = .automatic
        isEncoded = false
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

    /// The bytes, decoded from any gzip or deflate content coding (unless ``isEncoded``).
    ///
    /// For a body kept in a side file, reading this reads the whole file (empty when it can no
    /// longer be read); setting it puts the bytes in memory. Code that may meet large bodies asks
    /// ``file`` first and reads the file in pieces.
    public var data: Data {
        get {
            switch storage {
            case .bytes(let data): data
            case .file(let file): (try? file.contents()) ?? Data()
            }
        }
        set { storage = .bytes(newValue) }
    }

    /// The side file holding the bytes, when they are not in memory.
    public var file: BodyFile? {
        if case .file(let file) = storage { return file }
        return nil
    }

    /// How many bytes there are, without reading a side file.
    public var count: Int {
        switch storage {
        case .bytes(let data): data.count
        case .file(let file): file.size
        }
    }

    /// The largest side-file body read whole where every byte must be looked at (redaction and
    /// secrets while recording): 32 MiB. A larger one is left as it is, so memory stays bounded.
    public static let wholeReadLimit = 32 << 20

    /// Whether redaction and secrets may read the bytes whole: in memory, or a side file of at most ``wholeReadLimit``.
    public var isReadableWhole: Bool { file == nil || count <= Self.wholeReadLimit }

    /// The most bytes of a body that a log keeps (the journal's verify log, the unmatched log, the
    /// inspector): 64 KiB, so a flood of large requests cannot grow memory.
    public static let logLimit = 64 * 1024

    /// The body as a log keeps it: whole up to ``logLimit``, else its first ``logLimit`` bytes.
    public var logged: Body {
        var logged = self
        logged.cut(to: Self.logLimit)
        return logged
    }

    /// Keeps the first `limit` bytes; a body within it is left as it is (its storage shared, not copied).
    package mutating func cut(to limit: Int) {
        if count > limit { self = Body(prefix(limit), style: style) }
    }

    /// The first `maxLength` bytes, reading no more of a side file than that.
    public func prefix(_ maxLength: Int) -> Data {
        switch storage {
        case .bytes(let data): Data(data.prefix(maxLength))
        case .file(let file): file.prefix(maxLength)
        }
    }

    /// How many bytes are held in memory: none for a body in a side file.
    var inMemoryCount: Int { file == nil ? count : 0 }

    /// Whether there are no bytes.
    public var isEmpty: Bool { count == 0 }

    /// The bytes as text when they are valid UTF-8.
    public var text: String? { String(validatingUTF8Data: data) }
}

extension Body: Hashable {
    /// Bodies are equal when their bytes are: two side files named by their content by name and
    /// size (neither is read: a lint of two large downloads of one size read both whole to tell
    /// them apart), otherwise byte for byte.
    public static func == (lhs: Body, rhs: Body) -> Bool {
        guard lhs.style == rhs.style, lhs.isEncoded == rhs.isEncoded, lhs.count == rhs.count else { return false }
        if let left = lhs.file, let right = rhs.file, left.isNamedByContent, right.isNamedByContent { return left.digest == right.digest }
        return lhs.data == rhs.data
    }

    /// Hashes what equal bodies share without reading a side file: the size, style and mark.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(style)
        hasher.combine(isEncoded)
    }
}

extension String {
    /// Decodes UTF-8 strictly, keeping every byte (a byte order mark too): nil when the bytes are not valid UTF-8.
    init?(validatingUTF8Data data: Data) {
        guard let string = String(validating: data, as: UTF8.self) else { return nil }
        self = string
    }
}
