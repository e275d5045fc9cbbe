import Foundation
import TapedeckCore

/// Applies the core ``Redactor`` to every interaction of a cassette and says what changed where.
package struct CassetteRedaction: Sendable {
    /// The redactor applied.
    package let redactor: Redactor

    /// Creates the step with rules.
    package init(rules: RedactionRules) {
        redactor = Redactor(rules: rules)
    }

    /// The cassette with every secret replaced, and one line per change: `interactions[2]: request header Authorization`.
    package func apply(to cassette: Cassette) -> (cassette: Cassette, changes: [String]) {
        var result = cassette
        var changes: [String] = []
        for index in result.interactions.indices {
            let (redacted, changed) = redactor.redact(result.interactions[index])
            result.interactions[index] = redacted
            changes += changed.map { "interactions[\(index)]: \($0)" }
        }
        return (result, changes)
    }

    /// The side files `original` names and `redacted` no longer does: the bodies as they were
    /// before a redaction rewrote them, which still hold the secrets and are removed once the
    /// redacted cassette is saved.
    package static func replacedSideFiles(from original: Cassette, to redacted: Cassette) -> [URL] {
        func sideFiles(_ cassette: Cassette) -> Set<URL> {
            Set(cassette.interactions.flatMap { [$0.request.body.file?.url, $0.response.body.file?.url].compactMap { $0 } })
        }
        return sideFiles(original).subtracting(sideFiles(redacted)).sorted { $0.path < $1.path }
    }
}
