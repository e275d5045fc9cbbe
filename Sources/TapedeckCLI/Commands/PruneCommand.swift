import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck prune`: drops interactions a replay run never played, from the server's journal.
struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Drop the interactions a test run never played.",
        usage: "tapedeck prune <cassette> --journal <FILE> [<options>]",
        discussion: """
        Which were played, a journal saved from the replay server says. Save it after the test run: curl -s http://127.0.0.1:PORT/__tapedeck/journal > journal.json. \
        Entries are matched to the cassette by the name the server gives it (its path as given to `tapedeck replay`, in any folder spelling, or NAME for --cassette-dir; --name to set it). \
        A journal that dropped old entries, or never names the cassette, is refused unless --force.

        Example:
          tapedeck prune api.json --journal journal.json
        """)

    @Argument(help: "The cassette file.")
    var cassette: String

    @Option(help: ArgumentHelp("The journal JSON from GET /__tapedeck/journal.", valueName: "FILE"))
    var journal: String

    @Option(help: ArgumentHelp("The cassette's name in the journal, when it is not the file name.", valueName: "NAME"))
    var name: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the pruned cassette here instead of in place.", valueName: "FILE"))
    var output: String?

    @Flag(help: "Prune even when the journal dropped entries or never names the cassette.")
    var force = false

    @Flag(help: "Report what would be dropped without writing.")
    var dryRun = false

    func run() throws {
        do throws(ToolingError) {
            let files = CassetteFiles()
            let document = try JournalFile.load(URL(fileURLWithPath: journal))
            let loaded = try files.load(URL(fileURLWithPath: cassette))
            let names = name.map { Set([$0]) } ?? CassettePruner.names(for: cassette)
            let (pruned, removed) = try CassettePruner(journal: document, names: names, force: force).prune(loaded, file: cassette)
            for index in removed {
                let request = loaded.interactions[index].request
                FileHandleOutput.standardOutput("\(cassette): interactions[\(index)] \(request.method) \(request.url): never played, dropped")
            }
            let summary = "kept \(pruned.interactions.count) of \(loaded.interactions.count) interactions"
            if dryRun {
                FileHandleOutput.standardOutput("\(cassette): \(summary) (dry run, not written)")
            } else {
                let destination = output ?? cassette
                if !removed.isEmpty || output != nil { try files.save(pruned, to: URL(fileURLWithPath: destination)) }
                FileHandleOutput.standardOutput("\(destination): \(summary)")
            }
        } catch {
            throw ToolingFailure.report(error)
        }
    }
}
