import ArgumentParser

/// `tapedeck ca`: not built yet; its issue fills it in.
struct CACommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ca", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck ca is not built yet")
    }
}
