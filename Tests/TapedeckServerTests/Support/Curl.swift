import Foundation
import TapedeckTestSupport

/// Runs curl as a subprocess, bounded in time, and captures what it printed.
enum Curl {
    /// What curl returned.
    struct Result {
        /// The exit status.
        var status: Int32
        /// Standard output, bytes exactly.
        var output: Data
        /// Standard error.
        var error: String
        /// Standard output as text.
        var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// Runs `curl --silent --show-error --max-time 20 ARGUMENTS` (the bound times ``Deadlines/scale``
    /// under a sanitizer, as every other client's: the thread sanitizer once took curl past 20 s in
    /// `StoppingTests`, with every suite running at once).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await Subprocess.run(executable: "/usr/bin/env",
                                 arguments: ["curl", "--silent", "--show-error", "--max-time", "\(20 * Deadlines.scale)"] + arguments,
                                 environment: environment)
    }
}

/// Runs a program and waits for it, capturing both outputs apart.
enum Subprocess {
    /// Runs a program to completion on its own thread, leaving Swift's cooperative threads free
    /// for the servers under test.
    static func run(executable: String, arguments: [String], environment: [String: String] = [:]) async throws -> Curl.Result {
        let result = try await ChildProcess.runOnOwnThread(URL(filePath: executable), arguments, environment: environment, mergingErrors: false)
        return Curl.Result(status: result.status, output: result.standardOutput, error: String(decoding: result.standardError, as: UTF8.self))
    }
}
