import Foundation

/// The example upstream (`scripts/example_upstream.py`) run as a child process on a free 127.0.0.1 port.
final class ExampleUpstream {
    /// `http://127.0.0.1:PORT`.
    let baseURL: String
    private let process: Process

    /// Starts the server and waits (at most 10 s) for its `listening on` line.
    init() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", ToolingTestSupport.repository.appendingPathComponent("scripts/example_upstream.py").path,
                             "--port", "0", "--quiet"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let handle = output.fileHandleForReading
        var buffer = Data()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        let line = String(decoding: buffer, as: UTF8.self)
        guard let range = line.range(of: "http://127.0.0.1:") else {
            process.terminate()
            throw TestSupportError("the example upstream did not start: \(line)")
        }
        baseURL = String(line[range.lowerBound...].prefix { !$0.isWhitespace })
    }

    /// Stops the server: SIGTERM, then SIGKILL after two seconds (its shutdown waits for open
    /// keep-alive connections, which a client may still hold).
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
