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

    /// ``apply(to:)``, and the side-file bodies too large to redact in memory (past
    /// ``Body/wholeReadLimit``, which it leaves as they are) redacted piece by piece, as the
    /// recording proxy redacts them (``Redactor/streamingRedaction(contentType:)``): JSON under
    /// JSON-path rules. Each such body changed gets a new side file in `folder(original)`: its
    /// cassette's bodies folder, or a ``scratchFolder()`` for a copy that is not saved.
    package func apply(to cassette: Cassette,
                       largeBodiesInto folder: (BodyFile) -> URL) throws(ToolingError) -> (cassette: Cassette, changes: [String]) {
        var (result, changes) = apply(to: cassette)
        func redact(_ body: inout Body, contentType: String?, side: String, index: Int) throws(ToolingError) {
            guard let file = body.file, !body.isReadableWhole, !body.isEncoded,
                  let stream = redactor.streamingRedaction(contentType: contentType) else { return }
            do throws(SideFileError) {
                guard let (redacted, paths) = try SideFileSpool.redacted(file, by: stream, into: folder(file)) else { return }
                let style = body.style
                body = Body(file: redacted)
                body.style = style
                changes.append("interactions[\(index)]: \(side) body \(paths.sorted().joined(separator: ", "))")
            } catch {
                throw ToolingError(file: file.url.path, kind: .io("cannot redact the side file: \(error)"))
            }
        }
        for index in result.interactions.indices {
            let interaction = result.interactions[index]
            try redact(&result.interactions[index].request.body, contentType: interaction.request.headers["Content-Type"],
                       side: "request", index: index)
            try redact(&result.interactions[index].response.body, contentType: interaction.response.headers["Content-Type"],
                       side: "response", index: index)
        }
        return (result, changes)
    }

    /// A new temporary folder's name for large bodies redacted only to be read (a HAR export, a
    /// dry run); the caller removes it.
    package static func scratchFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-redaction-\(UUID().uuidString)")
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
