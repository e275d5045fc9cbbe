import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `scripts/upload_upstream.py` as a child process on a free 127.0.0.1 port: answers every POST or
/// PUT with the size and SHA-256 of the body that reached it. Stopped with SIGKILL by ``stop()``.
public final class UploadUpstream: @unchecked Sendable {
    private let process = SpawnedProcess()
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String

    /// Starts the service.
    public init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", ExampleUpstream.repositoryRoot.appendingPathComponent("scripts/upload_upstream.py").path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let range = line.range(of: "http://127.0.0.1:") else {
            kill(process.processIdentifier, SIGKILL)
            throw ExampleUpstreamError(output: line)
        }
        baseURL = String(line[range.lowerBound...].prefix { !$0.isWhitespace })
    }

    /// Stops the service.
    public func stop() {
        kill(process.processIdentifier, SIGKILL)
    }
}
