import ArgumentParser

/// `tapedeck prune`: not built yet; its issue fills it in.
struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "prune", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck prune is not built yet")
    }
}
