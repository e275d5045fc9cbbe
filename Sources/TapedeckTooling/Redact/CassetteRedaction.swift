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

    /// ``apply(to:)``, and the large side-file bodies too: redacted into `folder`
    /// (``redactLargeBodies(of:into:)``), or, with no folder, only reported (``largeBodyChanges(of:)``:
    /// a dry run writes nothing and leaves the cassette as it is).
    package func apply(to cassette: Cassette,
                       largeBodiesInto folder: ((BodyFile) -> URL)?) throws(ToolingError) -> (cassette: Cassette, changes: [String]) {
        var (result, changes) = apply(to: cassette)
        for index in result.interactions.indices {
            let changed = if let folder {
                try redactLargeBodies(of: &result.interactions[index], into: folder)
            } else {
                try largeBodyChanges(of: result.interactions[index])
            }
            changes += changed.map { "interactions[\(index)]: \($0)" }
        }
        return (result, changes)
    }

    /// Applies the rules to an interaction's side-file bodies too large to redact in memory (past
    /// ``Body/wholeReadLimit``, which ``Redactor`` leaves as they are), piece by piece as the
    /// recording proxy redacts them (``Redactor/streamingRedaction(contentType:)``): JSON under
    /// JSON-path rules. Each body changed gets a new side file in `folder(original)` (its
    /// cassette's bodies folder, or a temporary one for a copy that is not saved). Returns one
    /// line per body changed, worded as ``Redactor``'s: `response body $.user.ssn`.
    package func redactLargeBodies(of interaction: inout Interaction, into folder: (BodyFile) -> URL) throws(ToolingError) -> [String] {
        var changes: [String] = []
        for large in largeBodies(of: interaction) {
            guard let (redacted, paths) = try Self.reading(large.file, { () throws(SideFileError) in
                try SideFileSpool.redacted(large.file, by: large.redaction, into: folder(large.file))
            }) else { continue }
            let style = interaction[keyPath: large.body].style
            interaction[keyPath: large.body] = Body(file: redacted)
            interaction[keyPath: large.body].style = style
            changes.append("\(large.side) body \(Redactor.pathList(paths))")
        }
        return changes
    }

    /// What ``redactLargeBodies(of:into:)`` would change, read piece by piece and written nowhere
    /// (`tapedeck lint`, a dry run).
    package func largeBodyChanges(of interaction: Interaction) throws(ToolingError) -> [String] {
        var changes: [String] = []
        for large in largeBodies(of: interaction) {
            guard let paths = try Self.reading(large.file, { () throws(SideFileError) in
                try SideFileSpool.redactionPaths(in: large.file, by: large.redaction)
            }) else { continue }
            changes.append("\(large.side) body \(Redactor.pathList(paths))")
        }
        return changes
    }

    /// A side-file body the rules may change but ``Redactor`` cannot read whole, with the stream
    /// redaction its content type calls for.
    private struct LargeBody {
        let side: String
        let body: WritableKeyPath<Interaction, Body>
        let file: BodyFile
        let redaction: JSONStreamRedactor
    }

    /// The request's and the response's bodies that are side files past ``Body/wholeReadLimit``,
    /// stored decoded, of a type the rules redact as a stream.
    private func largeBodies(of interaction: Interaction) -> [LargeBody] {
        [("request", \Interaction.request.body, interaction.request.headers["Content-Type"]),
         ("response", \Interaction.response.body, interaction.response.headers["Content-Type"])].compactMap { side, path, contentType in
            let body = interaction[keyPath: path]
            guard let file = body.file, !body.isReadableWhole, !body.isEncoded,
                  let redaction = redactor.streamingRedaction(contentType: contentType) else { return nil }
            return LargeBody(side: side, body: path, file: file, redaction: redaction)
        }
    }

    /// Runs a side file's redaction; its failure as the tooling reports it, naming the file.
    private static func reading<Result>(_ file: BodyFile, _ work: () throws(SideFileError) -> Result) throws(ToolingError) -> Result {
        do throws(SideFileError) {
            return try work()
        } catch {
            throw ToolingError(file: file.url.path, kind: .io("cannot redact the side file: \(error)"))
        }
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
