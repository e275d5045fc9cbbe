import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck openapi validate`: every recorded exchange checked against an OpenAPI 3.0 or 3.1
/// document, offline, for CI.
struct OpenAPIValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check recorded exchanges against an OpenAPI document.",
        usage: "tapedeck openapi validate [<options>] <spec> <cassettes> ...",
        discussion: """
        Checks, for each interaction: its path (after a server's path prefix, such as /v1) and \
        method; its path, query and header parameters (required, and of their schema); its request \
        body (required, media type, schema); its status (documented, or covered by 2XX or default); \
        its answer's media type and schema. Reads OpenAPI 3.0 and 3.1, YAML or JSON. Prints one \
        line per violation (interactions[3] response.body $.user.age: expected integer, got string) \
        and a summary. Exit status 0 when clean, 1 with violations, 2 when a document or cassette \
        cannot be read.

        Example:
          tapedeck openapi validate api.yaml cassettes/users.json
        """)

    @Argument(help: "The OpenAPI document (YAML or JSON).")
    var spec: String

    @Argument(help: "The cassette files.")
    var cassettes: [String] = []

    @Flag(help: "Print the violations as a JSON list.")
    var json = false

    func validate() throws {
        if cassettes.isEmpty { throw ToolingFailure.usage("give at least one cassette after the document", command: "openapi validate") }
    }

    func run() throws {
        var found: [(cassette: String, violation: ContractViolation)] = []
        var checked = 0
        do throws(ToolingError) {
            let contract = try APIDocumentFile.contract(at: URL(fileURLWithPath: spec))
            let files = CassetteFiles()
            for cassette in cassettes {
                let interactions = try files.load(URL(fileURLWithPath: cassette)).interactions
                checked += interactions.count
                for (index, interaction) in interactions.enumerated() {
                    found += contract.violations(of: interaction, at: index).map { (cassette, $0) }
                }
            }
        } catch {
            throw ToolingFailure.report(error)
        }
        if json {
            FileHandleOutput.standardOutput(Self.json(found))
        } else {
            for (cassette, violation) in found {
                FileHandleOutput.standardOutput(cassettes.count > 1 ? "\(cassette): \(violation)" : "\(violation)")
            }
            let summary = "\(checked) interaction\(checked == 1 ? "" : "s") checked: "
                + (found.isEmpty ? "clean" : "\(found.count) violation\(found.count == 1 ? "" : "s")")
            FileHandleOutput.standardOutput(summary)
        }
        if !found.isEmpty { throw ExitCode(1) }
    }

    /// One object per violation: the cassette, the interaction's index, the side, the place, the
    /// path inside a body when there is one, the message and the line as printed.
    private static func json(_ found: [(cassette: String, violation: ContractViolation)]) -> String {
        let list: [JSONValue] = found.map { cassette, violation in
            var object: [String: JSONValue] = [
                "cassette": .string(cassette), "interaction": .integer(Int64(violation.interaction)),
                "side": .string(violation.side.rawValue), "place": .string(violation.place),
                "message": .string(violation.message), "text": .string(violation.description),
            ]
            if let path = violation.path { object["path"] = .string(path) }
            return .object(object)
        }
        return String(decoding: JSONValue.array(list).compactData, as: UTF8.self)
    }
}
