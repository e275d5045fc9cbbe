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

    /// Runs `curl --silent --show-error --max-time 20 ARGUMENTS`.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await Subprocess.run(executable: "/usr/bin/env", arguments: ["curl", "--silent", "--show-error", "--max-time", "20"] + arguments,
                           environment: environment)
    }
}

/// Runs a program and waits for it, capturing both outputs.
enum Subprocess {
    /// Runs a program to completion on its own thread, leaving Swift's cooperative threads free
    /// for the servers under test.
    static func run(executable: String, arguments: [String], environment: [String: String] = [:]) async throws -> Curl.Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    continuation.resume(returning: try runBlocking(executable: executable, arguments: arguments, environment: environment))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Runs a program to completion, blocking the calling thread.
    static func runBlocking(executable: String, arguments: [String], environment: [String: String]) throws -> Curl.Result {
        let process = SpawnedProcess()
        process.executableURL = URL(filePath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"] { merged[name] = nil }
        merged.merge(environment) { $1 }
        process.environment = merged
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let errorReader = Thread.detachedReader(error.fileHandleForReading)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Curl.Result(status: process.terminationStatus, output: data,
                           error: String(decoding: errorReader.wait(), as: UTF8.self))
    }
}

extension Thread {
    /// Reads a handle to its end on a background thread.
    static func detachedReader(_ handle: FileHandle) -> BackgroundRead {
        let read = BackgroundRead()
        Thread.detachNewThread { read.finish(handle.readDataToEndOfFile()) }
        return read
    }
}

/// The result of a read happening on another thread.
final class BackgroundRead: @unchecked Sendable {
    private let condition = NSCondition()
    private var data: Data?

    func finish(_ data: Data) {
        condition.lock(); self.data = data; condition.signal(); condition.unlock()
    }

    func wait() -> Data {
        condition.lock(); defer { condition.unlock() }
        while data == nil { condition.wait() }
        return data!
    }
}
