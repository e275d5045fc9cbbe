import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck import-vcr`: Ruby VCR, vcrpy and go-vcr cassettes into Tapedeck cassettes.
struct ImportVCRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-vcr",
        abstract: "Convert a VCR, vcrpy or go-vcr cassette.",
        usage: "tapedeck import-vcr <yaml> --output <CASSETTE> [<options>]",
        discussion: """
        Writes a Tapedeck cassette, the redaction rules applied. \
        The layout is recognised from the file (http_interactions: Ruby VCR; interactions with request uri: \
        vcrpy, YAML or JSON, its older httpx layout included; interactions with request url: go-vcr format 1 \
        or 2); a HAR file is imported as by `har import`. Compressed bodies are decoded and keep their \
        Content-Encoding (replay encodes them again); one that does not decode is kept as it was.

        Example:
          tapedeck import-vcr spec/cassettes/users.yml -o users.json
        """)

    @Argument(help: "The YAML cassette.")
    var yaml: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The cassette to write.", valueName: "CASSETTE"))
    var output: String

    @OptionGroup(title: "Redaction rules")
    var redaction: RedactionOptions

    func run() throws {
        try ForeignFileImport.run(yaml, into: output, rules: redaction.rules)
    }
}
