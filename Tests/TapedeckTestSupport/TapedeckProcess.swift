import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `tapedeck replay|record` run as a child process: its listening line and port, its
/// standard error, its memory and file descriptors, and how it exits.
public final class TapedeckProcess: @unchecked Sendable {
    /// The child process.
    public let process = SpawnedProcess()
    private let output = Pipe()
    private let errors = Pipe()
    private let lock = NSLock()
    private var errorText = Data()
    private let errorsDone = DispatchSemaphore(value: 0)
    /// The port from the listening line.
    public private(set) var port = 0
    /// The listening line exactly.
    public private(set) var listeningLine = ""

    /// Starts `tapedeck ARGUMENTS` with extra environment, in `directory` (default: the repository
    /// root); with a `launcher` (`["/usr/bin/prlimit", "--nofile=256"]`), as `LAUNCHER tapedeck ARGUMENTS`;
    /// `binary` runs another `tapedeck` than the one built (one unpacked from the release archive).
    public init(_ arguments: [String], environment: [String: String] = [:],
                directory: URL = ExampleUpstream.repositoryRoot, launcher: [String] = [], binary: URL? = nil) throws {
        let binary = try binary ?? TapedeckBinary.locate()
        if let program = launcher.first {
            process.executableURL = URL(filePath: program)
            process.arguments = Array(launcher.dropFirst()) + [binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        process.environment = merged
        process.currentDirectoryURL = directory
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let handle = errors.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.withLock { errorText.append(data) }
            }
            errorsDone.signal()
        }
    }

    /// Waits for `tapedeck listening on http://HOST:PORT` and returns the port.
    @discardableResult
    public func waitUntilListening(timeout: Double = 60) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var line = Data()
        let handle = output.fileHandleForReading
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { break }
            if byte == Data([0x0A]) {
                let text = String(decoding: line, as: UTF8.self)
                if let range = text.range(of: "tapedeck listening on http://"), let colon = text[range.upperBound...].lastIndex(of: ":"),
                   let port = Int(text[text.index(after: colon)...]) {
                    listeningLine = text
                    self.port = port
                    return port
                }
                line = Data()
            } else {
                line.append(byte)
            }
        }
        process.terminate()
        throw TapedeckProcessError(message: "tapedeck did not print its listening line; stderr: \(standardErrorSoFar())")
    }

    /// Sends a signal.
    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit, killing the process after `timeout` seconds; returns the status (-9 when killed).
    @discardableResult
    public func waitForExit(timeout: Double = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -9
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Stops the process (SIGTERM, then SIGKILL) and returns its standard error.
    @discardableResult
    public func stop() -> String {
        if process.isRunning { signal(SIGTERM) }
        waitForExit(timeout: 15)
        return standardError()
    }

    /// Everything written to standard error, once the process closed it (after the exit).
    public func standardError() -> String {
        _ = errorsDone.wait(timeout: .now() + 5)
        errorsDone.signal()
        return standardErrorSoFar()
    }

    /// What the process wrote to standard output after its listening line, once it closed it
    /// (after the exit): read to the end, so call it only after ``waitForExit(timeout:)``.
    public func standardOutputAfterListening() -> String {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Standard error written so far.
    public func standardErrorSoFar() -> String { String(decoding: lock.withLock { errorText }, as: UTF8.self) }

    /// The resident memory of the process in KiB (`VmRSS` in /proc): nil once it exited.
    public func residentKiB() -> Int? { statusKiB("VmRSS") }

    /// The peak resident memory of the process so far in KiB (`VmHWM` in /proc): nil once it exited.
    public func peakResidentKiB() -> Int? { statusKiB("VmHWM") }

    /// A figure in KiB from the process's /proc status, by field name.
    private func statusKiB(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }

    /// How many file descriptors the process holds open.
    public func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? -1
    }
}

/// The child process did not start as expected.
public struct TapedeckProcessError: Error, CustomStringConvertible {
    /// What went wrong, with the child's standard error.
    public let message: String
    public var description: String { message }
}
