import Foundation

/// `scripts/example_upstream.py` started on a free 127.0.0.1 port for a record-path test.
final class URLProtocolTestUpstream: @unchecked Sendable {
    /// `http://127.0.0.1:PORT`.
    let baseURL: String
    private let process: Process

    /// Starts the upstream and waits for its "listening" line.
    init(filePath: String = #filePath) throws {
        var root = URL(fileURLWithPath: filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            let parent = root.deletingLastPathComponent()
            guard parent.path != root.path else { throw URLProtocolTestUpstreamError("no Package.swift above \(filePath)") }
            root = parent
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/example_upstream.py").path, "--port", "0", "--quiet"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { process.terminate(); throw URLProtocolTestUpstreamError("the upstream exited: \(text)") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: "http://127.0.0.1:") else {
            process.terminate()
            throw URLProtocolTestUpstreamError("unexpected upstream output: \(text)")
        }
        self.baseURL = String(text[range.lowerBound...].prefix { !$0.isWhitespace })
        self.process = process
    }

    /// Stops the upstream: SIGKILL, since its threads wait on clients' keep-alive connections.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// The upstream could not start.
struct URLProtocolTestUpstreamError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
