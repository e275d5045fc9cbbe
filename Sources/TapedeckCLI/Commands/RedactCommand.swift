import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck redact`: applies the redaction rules to existing cassettes, atomically.
struct RedactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redact",
        abstract: "Redact existing cassettes in place.",
        usage: "tapedeck redact [<options>] <cassettes> ...",
        discussion: """
        Applies the default redaction rules and the ones given. \
        Every cassette is read first; if any does not load, nothing is written. Each changed cassette is \
        replaced in one rename, so an interrupted run leaves the old or the new file, never half of one. \
        Prints each change (interactions[2]: request header Authorization). A side-file body the rules \
        rewrite gets a new, redacted side file, and the old one, which still holds the secrets, is removed \
        once the cassette is saved. A JSON side file past 32 MiB is redacted piece by piece, as the \
        recording proxy redacts it, without being read whole.

        Example:
          tapedeck redact cassettes/*.json --redact-header X-Api-Key
        """)

    @Argument(help: "The cassette files.")
    var cassettes: [String]

    @OptionGroup(title: "Redaction rules")
    var redaction: RedactionOptions

    @Flag(help: "Report what would change without writing.")
    var dryRun = false

    func validate() throws {
        if cassettes.isEmpty { throw ToolingFailure.usage("give at least one cassette", command: "redact") }
    }

    func run() throws {
        do throws(ToolingError) {
            let step = CassetteRedaction(rules: redaction.rules)
            let files = CassetteFiles()
            var loaded: [(String, Cassette)] = []
            for path in cassettes { loaded.append((path, try files.load(URL(fileURLWithPath: path)))) }
            // A dry run reads large side files only; a run writes each redacted one beside the old.
            let folder: ((BodyFile) -> URL)? = dryRun ? nil : { $0.url.deletingLastPathComponent() }
            for (path, cassette) in loaded {
                let (redacted, changes) = try step.apply(to: cassette, largeBodiesInto: folder)
                changes.forEach { FileHandleOutput.standardOutput("\(path): \($0)") }
                if changes.isEmpty {
                    FileHandleOutput.standardOutput("\(path): nothing to redact")
                } else if dryRun {
                    FileHandleOutput.standardOutput("\(path): \(changes.count) change\(changes.count == 1 ? "" : "s") (dry run, not written)")
                } else {
                    try files.save(redacted, to: URL(fileURLWithPath: path))
                    FileHandleOutput.standardOutput("\(path): \(changes.count) change\(changes.count == 1 ? "" : "s") written")
                    for replaced in CassetteRedaction.replacedSideFiles(from: cassette, to: redacted) {
                        do {
                            try FileManager.default.removeItem(at: replaced)
                            FileHandleOutput.standardOutput("\(path): removed \(replaced.lastPathComponent), the side file as it was before redaction")
                        } catch {
                            Diagnostic.error("\(path): could not remove \(replaced.path), which still holds the secrets: \(error)")
                        }
                    }
                }
            }
        } catch {
            throw ToolingFailure.report(error)
        }
    }
}
