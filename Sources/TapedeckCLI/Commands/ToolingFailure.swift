import ArgumentParser
import Foundation
import TapedeckTooling

/// How a cassette tool reports a failure: the error on stderr (``Diagnostic``), then exit status 2
/// for bad input, 1 otherwise.
enum ToolingFailure {
    /// Prints the error and returns the exit code to throw.
    static func report(_ error: ToolingError) -> ExitCode {
        Diagnostic.error("\(error)")
        return ExitCode(error.isBadInput ? 2 : 1)
    }

    /// Prints a usage mistake with a pointer to the help, and returns exit status 2 (the contract's bad usage).
    static func usage(_ message: String, command: String) -> ExitCode {
        Diagnostic.error("\(message)\nSee 'tapedeck \(command) --help'.")
        return ExitCode(2)
    }
}
