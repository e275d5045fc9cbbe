import Foundation
import TapedeckCore

/// Reads a journal saved from `GET /__tapedeck/journal` (a ``JournalDocument``).
package enum JournalFile {
    /// The journal in a file; anything else is bad input naming the place.
    package static func load(_ file: URL) throws(ToolingError) -> JournalDocument {
        let data = try InputFile.read(file)
        do {
            return try JSONDecoder().decode(JournalDocument.self, from: data)
        } catch {
            let (path, message) = DecodingFailure.describe(error, in: data, document: .journal)
            throw ToolingError(file: file.path, kind: .badInput(
                path: path, message: "\(message) (expected the JSON of GET /__tapedeck/journal)"))
        }
    }
}
