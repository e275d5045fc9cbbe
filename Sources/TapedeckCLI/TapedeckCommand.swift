import ArgumentParser

/// `tapedeck`: record real HTTP exchanges into cassettes and play them back.
@main
struct TapedeckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tapedeck",
        abstract: "Record real HTTP exchanges into JSON cassettes and play them back.",
        discussion: """
        Exit status: 0 on success, 1 on a runtime failure, 2 on bad usage or bad input.
        """,
        version: "0.1.0",
        subcommands: [
            ReplayCommand.self, RecordCommand.self, CACommand.self,
            InspectCommand.self, LintCommand.self, RedactCommand.self, PruneCommand.self, MergeCommand.self,
            HARCommand.self, ImportVCRCommand.self,
        ]
    )
}
