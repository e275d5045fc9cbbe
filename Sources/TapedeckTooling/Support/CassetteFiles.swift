import Foundation
import TapedeckCore

/// Loads and saves cassettes for the tools, through the core codec only, with tooling errors.
package struct CassetteFiles: Sendable {
    /// The codec every read and write goes through.
    package let codec: CassetteCodec

    /// Creates the helper.
    package init(codec: CassetteCodec = CassetteCodec()) {
        self.codec = codec
    }

    /// Reads a cassette; any failure is bad input naming the file and the place.
    package func load(_ file: URL) throws(ToolingError) -> Cassette {
        do {
            return try codec.load(file)
        } catch {
            throw ToolingError(error)
        }
    }

    /// Replaces a cassette atomically; on failure the previous file is untouched. A cassette a
    /// recorder is recording is left as it is (``CassetteLock``): that recorder's next save would
    /// undo the change (a redaction among them).
    package func save(_ cassette: Cassette, to file: URL) throws(ToolingError) {
        let lock: CassetteLock
        do {
            lock = try CassetteLock(for: file)
        } catch {
            throw ToolingError(error)
        }
        defer { lock.release() }
        do {
            try codec.save(cassette, to: file)
        } catch {
            throw ToolingError(file: nil, kind: .io(error.description))
        }
    }
}
