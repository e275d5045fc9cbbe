import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck har`: HAR 1.2 import and export.
struct HARCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "har",
        abstract: "Import a HAR file into a cassette, or export one.",
        discussion: """
        HAR 1.2, as browsers, mitmproxy and Polly.js write it.

        Examples:
          tapedeck har import session.har -o session.json
          tapedeck har export session.json -o session.har
        """,
        subcommands: [HARImportCommand.self, HARExportCommand.self])
}

/// `tapedeck har import`: a HAR file into a cassette.
struct HARImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn a HAR file into a cassette.",
        usage: "tapedeck har import <har> --output <CASSETTE> [<options>]",
        discussion: """
        The redaction rules are applied. \
        Bodies are taken decoded (base64 content included, and Polly.js's hex bodies); timings become \
        firstByteMs (blocked + dns + connect + send + wait) and totalMs (time). Entries a browser never \
        completed (status 0) are skipped and listed. A VCR cassette given here is imported as by import-vcr. \
        The cassette is written atomically (replaced if it exists).

        Example:
          tapedeck har import session.har -o session.json
        """)

    @Argument(help: "The HAR file.")
    var har: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The cassette to write.", valueName: "CASSETTE"))
    var output: String

    @OptionGroup(title: "Redaction rules")
    var redaction: RedactionOptions

    func run() throws {
        try ForeignFileImport.run(har, into: output, rules: redaction.rules)
    }
}

/// `tapedeck har export`: a cassette into a HAR file.
struct HARExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a cassette as a HAR 1.2 file.",
        usage: "tapedeck har export <cassette> --output <FILE.har> [<options>]",
        discussion: """
        The redaction rules are applied first. \
        Text bodies stay text, other bytes are base64 (content.encoding "base64"); timings.wait is \
        firstByteMs and time is totalMs. Custom _ fields keep what HAR has no place for (stream chunks, \
        delayMs, recordedAt), so har import gives the same interactions back.

        Example:
          tapedeck har export session.json -o session.har
        """)

    @Argument(help: "The cassette file.")
    var cassette: String

    @Option(name: .shortAndLong, help: ArgumentHelp("The HAR file to write.", valueName: "FILE.har"))
    var output: String

    @OptionGroup(title: "Redaction rules")
    var redaction: RedactionOptions

    func run() throws {
        do throws(ToolingError) {
            let loaded = try CassetteFiles().load(URL(fileURLWithPath: cassette))
            let exporter = HARExporter(rules: redaction.rules)
            let result = try exporter.export(loaded)
            result.changes.forEach { FileHandleOutput.standardOutput("\(output): redacted \($0)") }
            let data = try exporter.encode(result.document)
            try OutputFile.write(data, to: URL(fileURLWithPath: output))
            FileHandleOutput.standardOutput("\(output): \(result.document.log.entries.count) entries exported from \(cassette)")
        } catch {
            throw ToolingFailure.report(error)
        }
    }
}
