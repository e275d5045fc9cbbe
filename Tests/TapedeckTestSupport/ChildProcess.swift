import Foundation

/// Runs a program to its end and returns its exit status and everything it printed (both outputs).
public enum ChildProcess {
    /// What a finished program left.
    public struct Result: Sendable {
        /// The exit status (the signal number when it died by one; see `diedBySignal`).
        public var status: Int32
        /// Standard output and standard error, interleaved as written.
        public var output: String
        /// Whether a signal ended it.
        public var diedBySignal: Bool
    }

    /// Runs `executable ARGUMENTS`, blocking until it exits.
    public static func run(_ executable: URL, _ arguments: [String]) throws -> Result {
        let process = SpawnedProcess()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                      diedBySignal: process.terminationReason == .uncaughtSignal)
    }
}
