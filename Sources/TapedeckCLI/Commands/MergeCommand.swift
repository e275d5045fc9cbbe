import ArgumentParser

/// `tapedeck merge`: not built yet; its issue fills it in.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "merge", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck merge is not built yet")
    }
}
