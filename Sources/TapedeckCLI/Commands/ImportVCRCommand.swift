import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck import-vcr`: Ruby VCR and vcrpy YAML cassettes into Tapedeck cassettes.
struct ImportVCRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-vcr",
        abstract: "Turn a Ruby VCR or vcrpy YAML cassette into a Tapedeck cassette, applying the redaction rules.",
        discussion: """
        The layout is recognised from the file (http_interactions: Ruby VCR; interactions: vcrpy). Compressed \
        bodies are decoded and keep their Content-Encoding (replay encodes them again). VCR records no timing.
        """)

    @Argument(help: "The YAML cassette.")
    var yaml: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The cassette to write.", valueName: "CASSETTE"))
    var output: String

    @OptionGroup(title: "Redaction rules")
    var redaction: ToolingRedactionOptions

    func run() throws {
        do throws(ToolingError) {
            let importer = VCRImporter(rules: try redaction.settings.rules())
            let result = try importer.importFile(URL(fileURLWithPath: yaml))
            try ImportedCassetteOutput(path: output).save(result.cassette, redactions: result.changes, from: yaml,
                                                          detail: " (\(result.flavor.rawValue))")
        } catch {
            throw ToolingFailure.report(error)
        }
    }
}
