import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// `tapedeck openapi infer`: an OpenAPI 3.1 document written from recorded traffic.
struct OpenAPIInferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "infer",
        abstract: "Write an OpenAPI document from recorded traffic.",
        usage: "tapedeck openapi infer [<options>] <cassettes> ...",
        discussion: """
        Writes an OpenAPI 3.1 document (JSON) describing the cassettes' exchanges: paths, with \
        segments that hold identifiers (numbers, UUIDs, long tokens with digits) folded into \
        templates such as /pets/{petId}; query parameters; request and response schemas inferred \
        from the JSON bodies (required where always present, null where null was seen); statuses \
        and media types; one recorded example per answer. The cassettes validate against it.

        Example:
          tapedeck openapi infer cassettes/*.json -o api.json
        """)

    @Argument(help: "The cassette files.")
    var cassettes: [String] = []

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the document here instead of to standard output.", valueName: "SPEC"))
    var output: String?

    func validate() throws {
        if cassettes.isEmpty { throw ToolingFailure.usage("give at least one cassette", command: "openapi infer") }
    }

    func run() throws {
        var inference = APIDocumentInference()
        do throws(ToolingError) {
            let files = CassetteFiles()
            for cassette in cassettes { inference.add(try files.load(URL(fileURLWithPath: cassette)).interactions) }
        } catch {
            throw ToolingFailure.report(error)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(inference.document)) ?? Data()
        guard let output else { return FileHandleOutput.standardOutput(String(decoding: data, as: UTF8.self)) }
        do {
            try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            throw ToolingFailure.report(ToolingError(file: output, kind: .io("cannot write the document: \(error.localizedDescription)")))
        }
    }
}
