import ArgumentParser

/// `tapedeck replay`: not built yet; its issue fills it in.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "replay", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck replay is not built yet")
    }
}
