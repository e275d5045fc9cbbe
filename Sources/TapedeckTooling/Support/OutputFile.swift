import Foundation

/// Writes non-cassette outputs (HAR files) by replacing the file in one rename, so a reader never sees half of one.
package enum OutputFile {
    /// Writes the bytes to a temporary file beside the target, then renames it over the target.
    package static func write(_ data: Data, to file: URL) throws(ToolingError) {
        do {
            try data.write(to: file, options: .atomic)
        } catch {
            throw ToolingError(file: file.path, kind: .io("cannot write: \(error.localizedDescription)"))
        }
    }
}
