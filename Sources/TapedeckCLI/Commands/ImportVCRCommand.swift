import ArgumentParser

/// `tapedeck import-vcr`: not built yet; its issue fills it in.
struct ImportVCRCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import-vcr", abstract: "(not built yet)")

    func run() throws {
        throw ValidationError("tapedeck import-vcr is not built yet")
    }
}
