import Dispatch
import Foundation

/// Runs a program to its end and collects what it printed: the one way the tests run a tool
/// (curl, Python, openssl, coreutils, `tapedeck` itself) and wait for it. The child starts with
/// the test's environment, less any proxy variable (every test talks to 127.0.0.1 only), plus
/// what the caller adds; it is killed if it outlives its time.
public enum ChildProcess {
    /// What a finished program left.
    public struct Result: Sendable {
        /// The exit status (the signal number when it died by one; see ``diedBySignal``).
        public var status: Int32
        /// Whether a signal ended it.
        public var diedBySignal: Bool
        /// Standard output, bytes exactly; with standard error interleaved when ``run(_:_:environment:mergingErrors:timeout:)`` merged them.
        public var standardOutput: Data
        /// Standard error (empty when merged into standard output).
        public var standardError: Data

        /// Everything it printed, as text: standard output, then standard error.
        public var output: String {
            String(decoding: standardOutput, as: UTF8.self) + String(decoding: standardError, as: UTF8.self)
        }
    }

    /// The variables no child inherits: a developer's proxy must not see the tests' loopback traffic.
    private static let proxyVariables = ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"]

    /// Runs `executable ARGUMENTS`, blocking until it exits.
    ///
    /// - Parameters:
    ///   - environment: variables added to (or replacing) the test's own.
    ///   - mergingErrors: standard error goes into the same pipe as standard output, interleaved as written.
    ///   - timeout: seconds after which the child is terminated and this throws.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           mergingErrors: Bool = true, timeout: TimeInterval = 600) throws -> Result {
        let process = SpawnedProcess()
        process.executableURL = executable
        process.arguments = arguments
        var inherited = ProcessInfo.processInfo.environment
        for name in proxyVariables { inherited[name] = nil }
        process.environment = inherited.merging(environment) { $1 }
        let output = Pipe(), errors = mergingErrors ? output : Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is read on a thread of its own, so a chatty child never blocks on a full pipe.
        let errorRead = mergingErrors ? nil : BackgroundRead(errors.fileHandleForReading)
        let deadline = Date().addingTimeInterval(timeout)
        let stopper = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: stopper)
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        stopper.cancel()
        let result = Result(status: process.terminationStatus, diedBySignal: process.terminationReason == .uncaughtSignal,
                            standardOutput: printed, standardError: errorRead?.wait() ?? Data())
        if result.diedBySignal && Date() >= deadline {
            throw ChildProcessTimeout(description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish in \(timeout) s")
        }
        return result
    }

    /// The same on a thread of its own, leaving Swift's cooperative threads free for the servers under test.
    public static func runOnOwnThread(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                                      mergingErrors: Bool = true, timeout: TimeInterval = 600) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Swift.Result {
                    try run(executable, arguments, environment: environment, mergingErrors: mergingErrors, timeout: timeout)
                })
            }
        }
    }
}

/// A child that outlived its time (``ChildProcess/run(_:_:environment:mergingErrors:timeout:)``).
public struct ChildProcessTimeout: Error, CustomStringConvertible {
    public let description: String
}

/// A pipe read to its end on a thread of its own.
private final class BackgroundRead: @unchecked Sendable {
    private let condition = NSCondition()
    private var data: Data?

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            let read = handle.readDataToEndOfFile()
            condition.lock(); data = read; condition.signal(); condition.unlock()
        }
    }

    /// The bytes, once the writer closed its end.
    func wait() -> Data {
        condition.lock(); defer { condition.unlock() }
        while data == nil { condition.wait() }
        return data!
    }
}
