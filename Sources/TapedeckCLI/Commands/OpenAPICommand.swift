import ArgumentParser

/// `tapedeck openapi`: what an OpenAPI document says about recorded traffic.
struct OpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Check recorded traffic against an OpenAPI document.",
        discussion: """
        Example:
          tapedeck openapi validate api.yaml cassettes/*.json
        """,
        subcommands: [OpenAPIValidateCommand.self])
}
