import Foundation
import TapedeckCore

/// Combines cassettes into one, keeping each cassette's order and the order the files were given.
package struct CassetteMerger: Sendable {
    /// How cassettes are read.
    package let files: CassetteFiles

    /// Creates a merger.
    package init(files: CassetteFiles = CassetteFiles()) {
        self.files = files
    }

    /// Reads every input through the codec, refusing a version other than this release's, and
    /// concatenates the interactions; the metadata of the first input is kept.
    package func merge(_ inputs: [URL]) throws(ToolingError) -> Cassette {
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
