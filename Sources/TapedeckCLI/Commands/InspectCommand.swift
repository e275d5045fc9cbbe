import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck inspect`: one line per interaction, or JSON for scripts.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "List a cassette's interactions.",
        discussion: """
        One line each: index, method, URL, status, body sizes and timing. With --json, prints \
        {"file", "interactions": [...]} with the same facts for scripts.

        Example:
          tapedeck inspect cassettes/example.json
        """)

    @Argument(help: "The cassette file.")
    var cassette: String

    @Flag(help: "Print JSON instead of lines.")
    var json = false

    @OptionGroup var proto: ProtoDescriptorOptions

    func run() throws {
        let loaded: Cassette
        do {
            loaded = try CassetteFiles().load(URL(fileURLWithPath: cassette))
        } catch {
            throw ToolingFailure.report(error)
        }
        let summaries = InteractionSummary.all(in: loaded, schema: proto.schema)
        if json {
            struct Output: Encodable { let file: String; let interactions: [InteractionSummary] }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(Output(file: cassette, interactions: summaries))
            FileHandleOutput.standardOutput(String(decoding: data, as: UTF8.self))
        } else {
            FileHandleOutput.standardOutput("\(cassette): \(summaries.count) interaction\(summaries.count == 1 ? "" : "s")")
            for summary in summaries { FileHandleOutput.standardOutput(summary.line) }
        }
    }
}
