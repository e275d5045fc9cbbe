import ArgumentParser
import Foundation
import NIOCore
import TapedeckCore
import TapedeckTooling

/// `tapedeck drift`: re-sends a cassette's requests to the live service and reports how the
/// answers changed, so a team learns that the API moved before its replayed tests lie to it.
struct DriftCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drift",
        abstract: "Compare a cassette with the live service.",
        usage: "tapedeck drift [<options>] <cassette>",
        discussion: """
        Sends the cassette's requests to the live service and compares each answer with its recording: the status, the media type of Content-Type, and \
        JSON bodies place by place (added, removed, type changed; values too with --values). Prints one \
        line per difference (interactions[3] $.user.age: number -> string) and a summary. Exit status 0 \
        when nothing but additions changed, 1 when something breaking did, 2 on bad input. Writes nothing \
        unless --update, which saves the live answers, redacted, secrets replaced.

        Example:
          tapedeck drift api.json
        """)

    @Argument(help: "The cassette file.")
    var cassette: String

    @Option(help: ArgumentHelp("Send the requests here instead of to the recorded origins (its path is a prefix).", valueName: "URL"))
    var target: String?

    @Option(name: .customLong("secret"), help: ArgumentHelp("Put the value of ENVVAR back where the cassette holds <NAME>.", valueName: "NAME=ENVVAR"))
    var secrets: [String] = []

    @Flag(help: "Also report changed JSON values and changed non-JSON bodies.")
    var values = false

    @Flag(help: "Save the live answers into the cassette (redacted, secrets replaced).")
    var update = false

    @Option(help: ArgumentHelp("Seconds to wait for each answer.", valueName: "SECONDS"))
    var timeout: Double = 30

    @OptionGroup(title: "Redaction rules (for --update)")
    var redaction: RedactionOptions

    func validate() throws {
        if let target, URL(string: target)?.host == nil {
            throw ToolingFailure.usage("--target \(target) is not an absolute URL", command: "drift")
        }
        if timeout <= 0 { throw ToolingFailure.usage("--timeout must be positive", command: "drift") }
    }

    func run() async throws {
        let file = URL(fileURLWithPath: cassette)
        let secretValues: Secrets
        do {
            secretValues = try Secrets(specifications: secrets, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ToolingFailure.usage("\(error)", command: "drift")
        }
        let breaking: Bool
        do throws(ToolingError) {
            let files = CassetteFiles()
            let recorded = try files.load(file)
            let rules = redaction.rules
            let check = DriftCheck(target: target.flatMap(URL.init(string:)), secrets: secretValues,
                                   comparison: DriftComparison(values: values))
            let live = LiveHTTPClient(timeout: .nanoseconds(Int64(timeout * 1_000_000_000)))
            let showsProgress = isatty(STDERR_FILENO) == 1 && recorded.interactions.count > 1
            let report = await check.run(recorded, sendingWith: live.send) { done, total in
                if showsProgress { FileHandle.standardError.write(Data("\rdrift: \(done)/\(total)".utf8)) }
            }
            try? await live.shutdown()
            if showsProgress { FileHandle.standardError.write(Data("\n".utf8)) }
            report.differences.forEach { FileHandleOutput.standardOutput("\($0)") }
            FileHandleOutput.standardOutput("\(cassette): \(report.summary)")
            if update {
                var refreshed = recorded
                refreshed.interactions = report.refreshed
                let (redacted, _) = CassetteRedaction(rules: rules).apply(to: refreshed)
                try files.save(redacted, to: file)
                FileHandleOutput.standardOutput("\(cassette): updated with the live answers")
            }
            breaking = report.isBreaking
        } catch {
            throw ToolingFailure.report(error)
        }
        if breaking { throw ExitCode(1) }
    }
}
