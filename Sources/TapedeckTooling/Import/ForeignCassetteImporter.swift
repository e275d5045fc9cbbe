import Foundation
import TapedeckCore

/// Imports another tool's recording, recognising the layout from the file: HAR (browsers,
/// mitmproxy, Polly.js, Insomnia), Ruby VCR, vcrpy (YAML or JSON) and go-vcr. What `tapedeck
/// har import` and `tapedeck import-vcr` both run, so either command takes any of them.
package struct ForeignCassetteImporter: Sendable {
    /// The redaction rules applied to every interaction.
    package let rules: RedactionRules

    /// Creates an importer applying these rules.
    package init(rules: RedactionRules = .defaults) {
        self.rules = rules
    }

    /// Reads and converts a file.
    package func importFile(_ file: URL) throws(ToolingError) -> ForeignImportResult {
        let data = try InputFile.read(file)
        return try importData(data, file: file.path)
    }

    /// Converts a file's bytes; `file` names the input in errors.
    package func importData(_ data: Data, file: String?) throws(ToolingError) -> ForeignImportResult {
        let bytes = InputFile.withoutByteOrderMark(data)
        if Self.isHAR(bytes) {
            let result = try HARImporter(rules: rules).importData(bytes, file: file)
            return ForeignImportResult(layout: "HAR from \(result.cassette.meta.recordedWith.map(Self.creator) ?? "?")",
                                       cassette: result.cassette, skipped: result.skipped, changes: result.changes)
        }
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw ToolingError(file: file, kind: .badInput(path: "", message: "not UTF-8 text; known layouts: HAR, "
                                                           + VCRFlavor.knownLayouts))
        }
        let result = try VCRImporter(rules: rules).importYAML(text, file: file)
        return ForeignImportResult(layout: result.flavor.rawValue, cassette: result.cassette, skipped: [], changes: result.changes)
    }

    /// Whether the bytes are a JSON object with a `log` member, as every HAR file is.
    static func isHAR(_ data: Data) -> Bool {
        guard data.first(where: { !Set<UInt8>([0x20, 0x09, 0x0a, 0x0d]).contains($0) }) == UInt8(ascii: "{"),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
        return object["log"] != nil
    }

    /// The creator named in an imported cassette's `recordedWith` (`… har import from Polly.JS 1.3.1`).
    private static func creator(_ recordedWith: String) -> String {
        recordedWith.range(of: " from ").map { String(recordedWith[$0.upperBound...]) } ?? recordedWith
    }
}
