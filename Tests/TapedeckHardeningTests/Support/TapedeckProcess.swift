import TapedeckCore
import Foundation
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `tapedeck replay|record` run as a child process: its port, its standard error, its memory.
final class TapedeckProcess: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private let errorText = Locked(Data())
    private let errorsDone = DispatchSemaphore(value: 0)
    /// The port from the listening line.
    private(set) var port = 0

    /// Starts `tapedeck ARGUMENTS` with extra environment, optionally through `sh -c 'ulimit ...; exec'`.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = try TapedeckBinary.locate()
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        process.environment = merged
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let handle = errors.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                self.errorText.withLock { $0.append(data) }
            }
            self.errorsDone.signal()
        }
    }

    /// Waits for `tapedeck listening on http://127.0.0.1:PORT` and returns the port.
    @discardableResult
    func waitUntilListening(timeout: Double = 60) throws -> Int {
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
                    self.port = port
                    return port
                }
                line = Data()
            } else {
                line.append(byte)
            }
        }
        process.terminate()
        throw HardeningError("tapedeck did not print its listening line; stderr: \(standardErrorSoFar())")
    }

    /// Sends a signal.
    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit, killing the process after `timeout` seconds; returns the status.
    @discardableResult
    func waitForExit(timeout: Double = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Stops the process (SIGTERM, then SIGKILL) and returns its standard error.
    @discardableResult
    func stop() -> String {
        if process.isRunning { signal(SIGTERM) }
        waitForExit(timeout: 15)
        _ = errorsDone.wait(timeout: .now() + 5)
        return standardErrorSoFar()
    }

    /// Standard error written so far.
    func standardErrorSoFar() -> String { String(decoding: errorText.withLock { $0 }, as: UTF8.self) }

    /// The resident memory of the process in KiB, from /proc.
    func residentKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }

    /// How many file descriptors the process holds open.
    func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? -1
    }
}
