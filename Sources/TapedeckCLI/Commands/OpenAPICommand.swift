import ArgumentParser

/// `tapedeck openapi`: what an OpenAPI document says about recorded traffic.
struct OpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Check or infer an OpenAPI document for recordings.",
        discussion: """
        Example:
          tapedeck openapi validate api.yaml cassettes/*.json
        """,
        subcommands: [OpenAPIValidateCommand.self, OpenAPIInferCommand.self])
}
