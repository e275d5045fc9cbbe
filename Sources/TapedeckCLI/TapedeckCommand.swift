import ArgumentParser
import Foundation
import Logging

/// `tapedeck`: record real HTTP exchanges into cassettes and play them back.
@main
struct TapedeckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tapedeck",
        abstract: "Record real HTTP exchanges into JSON cassettes and play them back.",
        discussion: """
        Exit status: 0 on success, 1 on a runtime failure, 2 on bad usage or bad input. \
        Errors and warnings go to standard error as tapedeck COMMAND: error: MESSAGE (or warning:).

        Examples:
          tapedeck replay cassettes/example.json
          tapedeck record api.json --target https://api.example.com
        """,
        version: "0.1.0",
        subcommands: [
            ReplayCommand.self, RecordCommand.self, CACommand.self,
            InspectCommand.self, LintCommand.self, RedactCommand.self, PruneCommand.self, MergeCommand.self,
            HARCommand.self, ImportVCRCommand.self, DriftCommand.self, OpenAPICommand.self,
        ]
    )

    /// Runs the command, mapping usage errors to exit status 2 as the contract says
    /// (swift-argument-parser would use 64), every error worded as ``Diagnostic`` says.
    static func main() async {
        LoggingSystem.bootstrap(StandardErrorLogHandler.init)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            // Help, a version, a completion script: printed as ArgumentParser does.
            guard code != .success else { exit(withError: error) }
            let message = fullMessage(for: error)
            if !message.isEmpty { FileHandleOutput.standardError(Diagnostic.reworded(message)) }
            exit(withError: code == .validationFailure ? ExitCode(2) : code)
        }
    }
}
