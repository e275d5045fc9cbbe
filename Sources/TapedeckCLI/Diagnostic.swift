import ArgumentParser

/// The one form of what the command line says about a failure or a risk, on standard error:
/// `tapedeck COMMAND: error: MESSAGE` and `tapedeck COMMAND: warning: MESSAGE`, COMMAND as typed
/// (`tapedeck har import: error: ...`), so a script that runs several commands shows which one
/// failed. Usage mistakes that ArgumentParser finds read the same way; the servers' log lines
/// begin alike (``StandardErrorLogHandler``).
enum Diagnostic {
    /// `tapedeck` and the command this process runs (`tapedeck replay`, `tapedeck ca path`).
    static let prefix = prefix(for: CommandLine.arguments)

    /// Writes `tapedeck COMMAND: error: MESSAGE`.
    static func error(_ message: String) {
        FileHandleOutput.standardError(line("error", message))
    }

    /// Writes `tapedeck COMMAND: warning: MESSAGE`.
    static func warning(_ message: String) {
        FileHandleOutput.standardError(line("warning", message))
    }

    /// `PREFIX: SEVERITY: MESSAGE`.
    static func line(_ severity: String, _ message: String, prefix: String = prefix) -> String {
        "\(prefix): \(severity): \(message)"
    }

    /// An error ArgumentParser worded (`Error: Missing expected argument ...`, then the usage) in
    /// the one form: its first line starts `tapedeck COMMAND: error: `.
    static func reworded(_ message: String) -> String {
        let text = message.hasPrefix("Error: ") ? String(message.dropFirst("Error: ".count)) : message
        return line("error", text)
    }

    /// `tapedeck` and the commands `arguments` name first (after the program's own name), as far
    /// as they are commands: `["tapedeck", "har", "import", "x.har"]` gives `tapedeck har import`.
    static func prefix(for arguments: [String]) -> String {
        var words = ["tapedeck"]
        var commands = TapedeckCommand.configuration.subcommands
        for argument in arguments.dropFirst() {
            guard let command = commands.first(where: { $0._commandName == argument }) else { break }
            words.append(argument)
            commands = command.configuration.subcommands
        }
        return words.joined(separator: " ")
    }
}
