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

    /// ``apply(to:)``, and ``redactLargeBodies(of:into:)`` on every interaction.
    package func apply(to cassette: Cassette,
                       largeBodiesInto folder: ((BodyFile) -> URL)?) throws(ToolingError) -> (cassette: Cassette, changes: [String]) {
        var (result, changes) = apply(to: cassette)
        for index in result.interactions.indices {
            changes += try redactLargeBodies(of: &result.interactions[index], into: folder).map { "interactions[\(index)]: \($0)" }
        }
        return (result, changes)
    }

    /// Applies the rules to an interaction's side-file bodies too large to redact in memory (past
    /// ``Body/wholeReadLimit``, which ``Redactor`` leaves as they are), piece by piece as the
    /// recording proxy redacts them (``Redactor/streamingRedaction(contentType:)``): JSON under
    /// JSON-path rules. Each body changed gets a new side file in `folder(original)` (its
    /// cassette's bodies folder, or a temporary one for a copy that is not saved); with no
    /// `folder`, nothing is written and the interaction stays as it is (lint, a dry run). Returns
    /// one line per body changed, worded as ``Redactor``'s: `response body $.user.ssn`.
    package func redactLargeBodies(of interaction: inout Interaction, into folder: ((BodyFile) -> URL)?) throws(ToolingError) -> [String] {
        var changes: [String] = []
        func redact(_ body: inout Body, contentType: String?, side: String) throws(ToolingError) {
            guard let file = body.file, !body.isReadableWhole, !body.isEncoded,
                  let stream = redactor.streamingRedaction(contentType: contentType) else { return }
            let paths: [String]
            do throws(SideFileError) {
                if let folder {
                    guard let (redacted, named) = try SideFileSpool.redacted(file, by: stream, into: folder(file)) else { return }
                    let style = body.style
                    body = Body(file: redacted)
                    body.style = style
                    paths = named
                } else {
                    guard let named = try SideFileSpool.redactionPaths(in: file, by: stream) else { return }
                    paths = named
                }
            } catch {
                throw ToolingError(file: file.url.path, kind: .io("cannot redact the side file: \(error)"))
            }
            changes.append("\(side) body \(Redactor.pathList(paths))")
        }
        try redact(&interaction.request.body, contentType: interaction.request.headers["Content-Type"], side: "request")
        try redact(&interaction.response.body, contentType: interaction.response.headers["Content-Type"], side: "response")
        return changes
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
