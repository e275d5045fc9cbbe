import Foundation
import TapedeckCore

/// Turns a JSON decoding failure of an input file (HAR, a journal) into a place and a message
/// users can act on, by the rules a cassette's failures are told with (``CassetteCodec``).
enum DecodingFailure {
    /// The place (`log.entries[3].response.status`) and what is wrong there, the top level named
    /// as `document`; a file that is not JSON at all gets the line and column of its first syntax error.
    static func describe(_ error: Error, in data: Data, document: JSONDocumentKind) -> (path: String, message: String) {
        guard let error = error as? DecodingError else { return ("", "\(error)") }
        switch CassetteCodec.kind(of: error, in: data, document: document) {
        case let .content(path, message):
            return (path, message)
        case let .syntax(line, column, message):
            return ("", "not valid JSON at line \(line), column \(column): \(message)")
        case .io, .unsupportedVersion, .inUse:
            return ("", "\(error)")
        }
    }
}
