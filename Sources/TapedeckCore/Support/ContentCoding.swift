import Foundation

/// A `Content-Encoding` that Tapedeck stores decoded and encodes again on replay.
package enum ContentCoding: String, Sendable, CaseIterable {
    /// RFC 1952 gzip.
    case gzip
    /// RFC 1950 zlib-wrapped deflate (raw deflate is accepted when decoding).
    case deflate

    /// The coding named by a `Content-Encoding` header, if Tapedeck handles it.
    package init?(header: String?) {
        guard let header else { return nil }
        switch header.trimmingCharacters(in: .whitespaces).lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        default: return nil
        }
    }

    /// Compresses bytes; the output is deterministic for the same input: a ``ContentCodingStream`` fed once.
    package func encode(_ data: Data) throws(ContentCodingError) -> Data {
        try ContentCodingStream(encoding: self).whole(data)
    }

    /// The most bytes a body or a gRPC message decodes to in memory: 64 MiB, the servers' default
    /// `--max-body`. Every byte a client, an upstream or a cassette sends is decoded under it:
    /// 1 MB of gzip can inflate to 1 GB (a compression bomb), and one such request took a replay
    /// server to 14 GB and a crash. Bytes that would decode past it do not decode, and are kept
    /// as they came, as bytes that are not valid gzip are.
    package static let decodedLimit = 64 << 20

    /// Decompresses bytes, or throws if they are not valid for this coding
    /// or decode past `limit` bytes: a ``ContentCodingStream`` fed once.
    package func decode(_ data: Data, limit: Int = ContentCoding.decodedLimit) throws(ContentCodingError) -> Data {
        try ContentCodingStream(decoding: self, limit: limit).whole(data)
    }

    /// zlib's window bits for encoding: gzip's header and trailer, or deflate's zlib wrapper (RFC 1950).
    var encodingWindowBits: Int32 { self == .gzip ? 15 + 16 : 15 }

    /// zlib's window bits for decoding this coding from bytes that begin with `prefix` (two bytes
    /// are enough): gzip's; for deflate, zlib-wrapped (RFC 1950) when they begin with a zlib
    /// header (deflate, and a multiple of 31), otherwise raw deflate (RFC 1951), as some servers send it.
    func decodingWindowBits(startingWith prefix: Data) -> Int32 {
        guard self == .deflate else { return 15 + 16 }
        guard prefix.count >= 2 else { return -15 }
        let first = prefix[prefix.startIndex], second = prefix[prefix.startIndex + 1]
        return first & 0x0f == 8 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0 ? 15 : -15
    }
}

/// Bytes that could not be compressed or decompressed.
package struct ContentCodingError: Error, CustomStringConvertible, Sendable {
    /// The coding involved.
    package let coding: ContentCoding
    /// `encode` or `decode`.
    package let operation: String
    /// What went wrong.
    package let message: String
    /// Whether the bytes decode past the limit asked for (``ContentCoding/decodedLimit``).
    package var isPastLimit = false

    package var description: String { "cannot \(operation) \(coding.rawValue) body: \(message)" }

    /// Bytes that decode past `limit` bytes.
    static func pastLimit(_ limit: Int, coding: ContentCoding) -> ContentCodingError {
        ContentCodingError(coding: coding, operation: "decode", message: "it decodes past \(limit) bytes", isPastLimit: true)
    }
}

extension Body {
    /// A body received with this `Content-Encoding`, in the form a cassette stores it: gzip or
    /// deflate decoded (the header is kept, replay encodes again); bytes that do not decode kept
    /// exactly as received and marked ``isEncoded``, so replay sends them as they came; any other
    /// coding (br, zstd) or none kept as it is.
    package static func storing(received data: Data, contentEncoding: String?) -> Body {
        guard !data.isEmpty, let coding = ContentCoding(header: contentEncoding) else { return Body(data) }
        guard let decoded = try? coding.decode(data) else { return .stillEncoded(data) }
        return Body(decoded)
    }
}
