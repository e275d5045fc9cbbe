import Foundation
import Logging
import NIOPosix
import TapedeckCore
import TapedeckServer
import TapedeckTestSupport

/// Starts a recording proxy on 127.0.0.1 with a free port and a temporary `$TAPEDECK_HOME`,
/// runs a test body and always stops it, saving the cassette.
struct RecordHarness {
    let server: TapedeckServer
    let responder: RecordingMode
    let authorityHome: URL

    var base: String { server.url }

    /// Runs `body` with a recording proxy that logs to `logger`.
    static func run<T>(settings: RecordSettings, configure: (inout ServerConfiguration) -> Void = { _ in },
                       logger: Logger = Logger(label: "tapedeck.record.test"),
                       _ body: (RecordHarness) async throws -> T) async throws -> T {
        let home = try Fixtures.temporaryDirectory()
        var configuration = ServerConfiguration(port: 0, authorityHome: home)
        configuration.idleTimeout = .seconds(Int64(Deadlines.serverIdle))
        configure(&configuration)
        let responder = try RecordingMode(settings: settings, configuration: configuration,
                                            authority: CertificateAuthority(home: home),
                                            logger: logger)
        let server = try await TapedeckServer.start(configuration: configuration, mode: responder)
        let harness = RecordHarness(server: server, responder: responder, authorityHome: home)
        do {
            let result = try await body(harness)
            try await server.shutdown()
            try await responder.shutdown()
            try? FileManager.default.removeItem(at: home)
            return result
        } catch {
            try? await server.shutdown()
            try? await responder.shutdown()
            try? FileManager.default.removeItem(at: home)
            throw error
        }
    }

    /// Records from a fresh `TestUpstream` into a cassette in a temporary folder: runs `body`
    /// with the proxy (reverse, in front of the upstream, unless `settings` says otherwise),
    /// stops the upstream and returns the cassette file's text and what it holds.
    static func recordFromTestUpstream(
        settings: (_ cassette: URL, _ upstream: TestUpstream) throws -> RecordSettings = { RecordSettings(cassette: $0, target: $1.target) },
        _ body: (RecordHarness, TestUpstream) async throws -> Void
    ) async throws -> (text: String, cassette: Cassette) {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appending(path: "recorded.json")
        let upstream = try await TestUpstream.start()
        do {
            try await run(settings: try settings(cassette, upstream)) { harness in try await body(harness, upstream) }
        } catch {
            try? await upstream.stop()
            throw error
        }
        try await upstream.stop()
        return (try String(contentsOf: cassette, encoding: .utf8), try CassetteCodec().load(cassette))
    }

    /// Records through a reverse proxy in front of the example upstream (`scripts/example_upstream.py`,
    /// Python's http.server: HTTP/1.1 only, no WebSocket) into a cassette in a temporary folder;
    /// returns what the cassette holds, nil when nothing was recorded (no file written).
    static func recordFromExampleUpstream(_ body: (RecordHarness) async throws -> Void) async throws -> Cassette? {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let file = directory.appending(path: "recorded.json")
        try await run(settings: RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL)), body)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try CassetteCodec().load(file)
    }

    /// Writes the local CA certificate to a file for curl --cacert.
    func authorityFile() throws -> URL {
        let file = authorityHome.appending(path: "client-ca.pem")
        try Data(responder.authority.certificatePEM().utf8).write(to: file)
        return file
    }
}
