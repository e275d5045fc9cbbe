import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `scripts/echo_upstream.py` as a child process on a free 127.0.0.1 port: a live service whose
/// answers a test sets per path (status, content type, JSON body), which can demand a header and
/// echo one back. Stopped with SIGKILL by ``stop()`` or on deinit.
public final class EchoUpstream: @unchecked Sendable {
    private let process = SpawnedProcess()
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String

    /// Starts the service with `routes`: path -> {"status", "contentType", "body", "requireHeader", "echoHeader", "headers"}.
    public init(routes: [String: Any]) throws {
        let file = TestFiles.folder.appendingPathComponent("tapedeck-routes-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: routes).write(to: file)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", ExampleUpstream.repositoryRoot.appendingPathComponent("scripts/echo_upstream.py").path, file.path]
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

    /// `127.0.0.1:PORT`.
    public var authority: String { String(baseURL.dropFirst("http://".count)) }

    /// One route's answer.
    public static func route(status: Int = 200, body: [String: Any], requireHeader: (String, String)? = nil,
                             echoHeader: String? = nil, headers: [String: String] = [:], gzip: Bool = false) -> [String: Any] {
        var route: [String: Any] = ["status": status, "contentType": "application/json", "body": body, "headers": headers, "gzip": gzip]
        if let requireHeader { route["requireHeader"] = [requireHeader.0, requireHeader.1] }
        if let echoHeader { route["echoHeader"] = echoHeader }
        return route
    }

    /// Stops it at once: SIGKILL, since a test process may hand its children a blocked SIGTERM.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}
