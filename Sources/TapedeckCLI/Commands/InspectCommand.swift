import ArgumentParser

/// `tapedeck inspect`: not built yet; its issue fills it in.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "inspect", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck inspect is not built yet")
    }
}
