import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck lint`: schema errors, secrets in clear, duplicates that add nothing, missing timing.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check cassettes for errors, secrets and duplicates.",
        usage: "tapedeck lint [<options>] <cassettes> ...",
        discussion: """
        Errors: a cassette that does not load (file and line/column, or the JSON path such as \
        interactions[3].response.status; every interaction that does not load, each at its place). \
        Warnings: values the redaction rules would replace, secret shapes (bearer tokens, basic \
        credentials, sk_live_, AKIA, ghp_, xoxb-, AIza, JWTs, private key blocks), interactions that \
        duplicate an earlier one under the match rules, missing timing, response fields named like \
        pseudo-headers, and gRPC answers whose grpc-status a client cannot read.
        Exit status: 0 when clean, 1 when there are errors (or warnings with --strict), 2 on bad usage.

        Example:
          tapedeck lint --strict cassettes/*.json
        """)

    @Argument(help: "The cassette files.")
    var cassettes: [String]

    @Flag(help: "Fail (exit status 1) on warnings too.")
    var strict = false

    @Flag(help: "Print the findings as JSON.")
    var json = false

    @Option(name: .customLong("ignore-query"), help: ArgumentHelp("Match as replay will with this query parameter ignored.", valueName: "NAME"))
    var ignoredQuery: [String] = []

    @Option(name: .customLong("ignore-json-path"), help: ArgumentHelp("Match as replay will with this JSON place ignored.", valueName: "PATH"))
    var ignoredJSONPaths: [String] = []

    @Option(name: .customLong("match-header"), help: ArgumentHelp("Match as replay will with this header compared too.", valueName: "NAME"))
    var matchedHeaders: [String] = []

    @Option(name: .customLong("expire-after"), help: ArgumentHelp("Report interactions recorded more than DAYS days ago (else the cassette's meta.expireAfterDays).", valueName: "DAYS"))
    var expireAfterDays: Double?

    @OptionGroup(title: "Redaction rules a clean cassette satisfies")
    var redaction: RedactionOptions

    func validate() throws {
        if cassettes.isEmpty { throw ToolingFailure.usage("give at least one cassette", command: "lint") }
        if let expireAfterDays, expireAfterDays <= 0 { throw ToolingFailure.usage("--expire-after must be positive", command: "lint") }
    }

    func run() throws {
        let linter: CassetteLinter
        do throws(ToolingError) {
            var paths: [JSONPath] = []
            for text in ignoredJSONPaths {
                do { paths.append(try JSONPath(text)) } catch {
                    throw ToolingError(file: nil, kind: .badInput(path: "--ignore-json-path \(text)", message: "\(error)"))
                }
            }
            let options = MatchOptions(ignoredQueryParameters: Set(ignoredQuery), ignoredJSONPaths: paths,
                                       matchedHeaders: matchedHeaders)
            let rules = redaction.rules
            linter = CassetteLinter(matchOptions: options, redaction: rules, expireAfterDays: expireAfterDays)
        } catch {
            throw ToolingFailure.report(error)
        }
        let findings = cassettes.flatMap { linter.lint(file: URL(fileURLWithPath: $0)) }
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            FileHandleOutput.standardOutput(String(decoding: try encoder.encode(findings), as: UTF8.self))
        } else {
            findings.forEach { FileHandleOutput.standardOutput("\($0)") }
            let checked = "\(cassettes.count) cassette\(cassettes.count == 1 ? "" : "s")"
            FileHandleOutput.standardOutput(findings.isEmpty ? "\(checked): clean" : "\(checked): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        }
        if errors > 0 || (strict && warnings > 0) { throw ExitCode(1) }
    }
}
