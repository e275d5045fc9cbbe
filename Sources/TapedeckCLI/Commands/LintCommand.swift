import ArgumentParser

/// `tapedeck lint`: not built yet; its issue fills it in.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lint", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck lint is not built yet")
    }
}
