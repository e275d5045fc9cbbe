import Foundation
import TapedeckTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The `tapedeck` executable run as a subprocess, for the command-line contract.
final class ServerProcess {
    let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var errorRead: BackgroundRead?
    /// The port from the listening line.
    private(set) var port = 0
    /// The listening line exactly.
    private(set) var listeningLine = ""

    /// Starts `tapedeck ARGUMENTS` with extra environment.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = try TapedeckBinary.locate()
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { $1 }
        process.environment = merged
        process.currentDirectoryURL = Fixtures.packageRoot
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        errorRead = Thread.detachedReader(errors.fileHandleForReading)
    }

    /// Waits for the listening line, failing after `timeout` seconds.
    func waitUntilListening(timeout: Double = 60) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var line = Data()
        let handle = output.fileHandleForReading
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { break }
            if byte == Data([0x0A]) {
                listeningLine = String(decoding: line, as: UTF8.self)
                if let range = listeningLine.range(of: "tapedeck listening on http://127.0.0.1:"),
                   let port = Int(listeningLine[range.upperBound...]) {
                    self.port = port
                    return port
                }
                line = Data()
            } else {
                line.append(byte)
            }
        }
        process.terminate()
        throw FixtureError(message: "tapedeck did not print its listening line; stderr: \(standardError())")
    }

    /// Sends a signal.
    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the exit, killing the process after `timeout` seconds; returns the status.
    func waitForExit(timeout: Double = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit(); return -9 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Everything written to standard error (after the exit).
    func standardError() -> String { String(decoding: errorRead?.wait() ?? Data(), as: UTF8.self) }
}
