import ArgumentParser

/// `tapedeck har`: not built yet; its issue fills it in.
struct HARCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "har", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck har is not built yet")
    }
}
