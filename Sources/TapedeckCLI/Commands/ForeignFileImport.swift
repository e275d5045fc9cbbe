import Foundation
import TapedeckCore
import TapedeckTooling

/// What `har import` and `import-vcr` both do: read a foreign file (HAR, Ruby VCR, vcrpy,
/// go-vcr; the layout is recognised from the file), apply the redaction rules, write the cassette
/// atomically and say what was skipped, redacted and imported.
enum ForeignFileImport {
    /// Imports `source` into the cassette file `cassette`, applying `rules`.
    static func run(_ source: String, into cassette: String, rules: RedactionRules) throws {
        do throws(ToolingError) {
            let result = try ForeignCassetteImporter(rules: rules).importFile(URL(fileURLWithPath: source))
            result.skipped.forEach { FileHandleOutput.standardOutput("\(source): skipped \($0)") }
            result.changes.forEach { FileHandleOutput.standardOutput("\(cassette): redacted \($0)") }
            try CassetteFiles().save(result.cassette, to: URL(fileURLWithPath: cassette))
            FileHandleOutput.standardOutput("\(cassette): \(result.cassette.interactions.count) interactions imported from \(source) (\(result.layout))")
        } catch {
            throw ToolingFailure.report(error)
        }
    }
}
