import ArgumentParser

/// `tapedeck record`: not built yet; its issue fills it in.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "record", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck record is not built yet")
    }
}
