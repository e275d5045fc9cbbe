import Foundation
import TapedeckCore

/// Combines cassettes into one, keeping each cassette's order and the order the files were given.
public struct CassetteMerger: Sendable {
    /// How cassettes are read.
    public let files: CassetteFiles

    /// Creates a merger.
    public init(files: CassetteFiles = CassetteFiles()) {
        self.files = files
    }

    /// Reads every input through the codec, refusing a version other than this release's, and
    /// concatenates the interactions; the metadata of the first input is kept.
    public func merge(_ inputs: [URL]) throws(ToolingError) -> Cassette {
        var merged: Cassette?
        for input in inputs {
            let cassette: Cassette
            do {
                cassette = try files.codec.load(input)
            } catch {
                if case .unsupportedVersion(let version) = error.kind {
                    throw ToolingError(file: input.path, kind: .incompatibleVersion(version))
                }
                throw ToolingError(error)
            }
            if merged == nil {
                merged = cassette
            } else {
                merged!.interactions += cassette.interactions
            }
        }
        guard let merged else {
            throw ToolingError(file: nil, kind: .badInput(path: "", message: "merge needs at least one cassette"))
        }
        return merged
    }
}
