import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck merge`: combines cassettes in the order given.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine cassettes into one.",
        discussion: """
        The interactions keep each cassette's order, the cassettes the order given. \
        A cassette of a format version this release does not read is refused (exit status 2) and nothing \
        is written. The output is replaced in one rename; it may be one of the inputs.

        Example:
          tapedeck merge users.json orders.json -o api.json
        """)

    @Argument(help: "The cassettes, in order.")
    var cassettes: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("The merged cassette.", valueName: "FILE"))
    var output: String

    func validate() throws {
        if cassettes.count < 2 { throw ToolingFailure.usage("give at least two cassettes to merge", command: "merge") }
    }

    func run() throws {
        do throws(ToolingError) {
            let merged = try CassetteMerger().merge(cassettes.map { URL(fileURLWithPath: $0) })
            try CassetteFiles().save(merged, to: URL(fileURLWithPath: output))
            FileHandleOutput.standardOutput("\(output): \(merged.interactions.count) interactions from \(cassettes.count) cassettes")
        } catch {
            throw ToolingFailure.report(error)
        }
    }
}
