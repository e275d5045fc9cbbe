import Foundation
import TapedeckCore

/// How a response body taken from another tool's file is stored, given its `Content-Encoding`:
/// the one rule the HAR and VCR importers share.
enum ImportedBody {
    /// The bytes as a cassette body; `headers` loses `Content-Encoding` when the bytes are no longer in that coding.
    ///
    /// - gzip or deflate: bytes that decode are stored decoded (the header kept, replay encodes again);
    ///   bytes the tool had already decoded stay as they are; bytes that look compressed but do not
    ///   decode are kept exactly and marked still encoded, so replay sends them as they were.
    /// - other codings (br, zstd): kept with the header when the bytes are still in that coding,
    ///   otherwise the header goes.
    /// - `decodedByTool`: the format stores decoded bodies (HAR), so only gzip-looking bytes are decoded.
    /// - `stillEncoded`: the file says the bytes are still in their coding (Tapedeck's `_stillEncoded`).
    static func response(_ data: Data, headers: inout HeaderList, decodedByTool: Bool, stillEncoded: Bool = false) -> Body {
        guard !data.isEmpty, let header = headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces).lowercased(),
              !header.isEmpty, header != "identity" else { return Body(data) }
        let gzipMagic = data.starts(with: [0x1f, 0x8b])
        if let coding = ContentCoding(header: header) {
            if stillEncoded { return .stillEncoded(data) }
            let alreadyDecoded = decodedByTool ? !gzipMagic : (!gzipMagic && looksDecoded(data))
            if alreadyDecoded { return Body(data) }
            return Body.storing(received: data, contentEncoding: coding.rawValue)
        }
        if stillEncoded || (!decodedByTool && !looksDecoded(data)) { return Body(data) }
        headers.remove("Content-Encoding")
        headers.remove("Content-Length")
        return Body(data)
    }

    /// Whether bytes are plainly not in a compressed coding: the first 512 all printable or whitespace.
    static func looksDecoded(_ data: Data) -> Bool {
        data.prefix(512).allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
    }
}
