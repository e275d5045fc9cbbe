import ArgumentParser

/// `tapedeck redact`: not built yet; its issue fills it in.
struct RedactCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "redact", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck redact is not built yet")
    }
}
