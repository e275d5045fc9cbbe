import Foundation

/// Debian's nginx as a child process, serving an `http { ... }` block a test writes: a balancer in
/// front of replay servers, or an HTTP/2 upstream over TLS. Everything it writes stays in the
/// test's folder; stopped by ``stop()`` or on deinit.
public final class NginxServer: @unchecked Sendable {
    /// The server binary, if installed.
    public static let path: String? = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// Why a test that needs nginx is skipped, when it is.
    public static let missing = "nginx is not installed (apt-get install -y nginx-light); the test is skipped"

    private let process = SpawnedProcess()

    /// Starts nginx with `http` as the body of its `http` block, its files in `directory`.
    public init(http: String, in directory: URL) throws {
        guard let path = Self.path else { throw NginxMissing() }
        let temporary = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .map { "\($0)_temp_path \(directory.path)/\($0);" }.joined(separator: " ")
        let configuration = """
            daemon off; worker_processes 1; pid \(directory.path)/nginx.pid; error_log \(directory.path)/error.log;
            events { worker_connections 64; }
            http { access_log off; \(temporary)
            \(http)
            }
            """
        let file = directory.appending(path: "nginx.conf")
        try Data(configuration.utf8).write(to: file)
        process.executableURL = URL(filePath: path)
        process.arguments = ["-p", directory.path, "-c", file.path]
        try process.run()
    }

    /// Stops it and waits for it to exit.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// nginx is not installed.
public struct NginxMissing: Error, CustomStringConvertible {
    public var description: String { NginxServer.missing }
}
