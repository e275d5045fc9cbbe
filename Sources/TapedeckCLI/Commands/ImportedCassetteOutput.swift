import Foundation
import TapedeckCore
import TapedeckTooling

/// Where `har import` and `import-vcr` write their cassette: reports each redaction, saves
/// atomically, and prints one summary line.
struct ImportedCassetteOutput {
    /// The cassette file to write, as given on the command line.
    let path: String

    /// Saves an imported cassette; `detail` is appended to the summary line.
    func save(_ cassette: Cassette, redactions: [String], from source: String, detail: String = "") throws(ToolingError) {
        redactions.forEach { print("\(path): redacted \($0)") }
        try CassetteFiles().save(cassette, to: URL(fileURLWithPath: path))
        print("\(path): \(cassette.interactions.count) interactions imported from \(source)\(detail)")
    }
}
