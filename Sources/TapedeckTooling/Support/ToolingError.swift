import Foundation
import TapedeckCore

/// A cassette tool that cannot do its job, with the file and the place, readable when printed.
package struct ToolingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong.
    package enum Kind: Sendable, Equatable {
        /// A cassette that cannot be read (the codec's error, with file and place).
        case cassette(CassetteError)
        /// An input file (HAR, VCR YAML, journal) that does not say what it must; `path` names the place.
        case badInput(path: String, message: String)
        /// A cassette whose format version this release cannot combine with the others.
        case incompatibleVersion(Int)
        /// A journal that cannot safely decide what to prune.
        case unsafeJournal(String)
        /// A file that could not be written; what was there before is untouched.
        case io(String)
    }

    /// The file concerned, when there is one.
    package var file: String?
    /// What went wrong.
    package var kind: Kind

    /// Creates an error.
    package init(file: String?, kind: Kind) {
        self.file = file
        self.kind = kind
    }

    /// Wraps a codec error.
    package init(_ error: CassetteError) {
        self.init(file: error.file, kind: .cassette(error))
    }

    /// Whether the input was at fault (exit status 2) rather than the system (exit status 1).
    package var isBadInput: Bool {
        switch kind {
        case .cassette(let error): return error.isBadInput
        case .badInput, .incompatibleVersion, .unsafeJournal: return true
        case .io: return false
        }
    }

    package var description: String {
        let name = file ?? "input"
        switch kind {
        case .cassette(let error):
            return error.description
        case let .badInput(path, message):
            return path.isEmpty ? "\(name): \(message)" : "\(name): \(path): \(message)"
        case .incompatibleVersion(let version):
            return "\(name): cassette format version \(version) cannot be merged; this release reads and writes version \(Cassette.formatVersion)"
        case .unsafeJournal(let message):
            return "\(name): \(message)"
        case .io(let message):
            return file.map { "\($0): \(message)" } ?? message
        }
    }
}
