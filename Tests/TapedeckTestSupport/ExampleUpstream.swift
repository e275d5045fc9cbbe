import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `scripts/example_upstream.py` running as a child process on a free 127.0.0.1 port: the
/// real upstream that record-path tests talk to. Shared by every test target. Another script that
/// prints its `http://127.0.0.1:PORT` first (`scripts/grpc_upstream.py`) runs the same way.
public final class ExampleUpstream: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    private let process: SpawnedProcess

    /// The repository root, found from this file's path.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Starts the server and waits (at most 10 s) for the line naming its address.
    public init(script: String = "scripts/example_upstream.py", arguments: [String] = ["--port", "0", "--quiet"]) throws {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", Self.repositoryRoot.appendingPathComponent(script).path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var buffer = Data()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        let line = String(decoding: buffer, as: UTF8.self)
        guard let range = line.range(of: "http://127.0.0.1:") else {
            kill(process.processIdentifier, SIGKILL)
            throw ExampleUpstreamError(output: line)
        }
        self.process = process
        baseURL = String(line[range.lowerBound...].prefix { !$0.isWhitespace })
    }

    /// `127.0.0.1:PORT`.
    public var authority: String { String(baseURL.dropFirst("http://".count)) }

    /// Stops the server at once: SIGKILL, since a test process may hand its children a blocked
    /// SIGTERM and clients may hold keep-alive connections open.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// The example upstream did not start.
public struct ExampleUpstreamError: Error, CustomStringConvertible {
    /// What it printed.
    public let output: String

    public var description: String { "the example upstream did not start: \(output)" }
}
