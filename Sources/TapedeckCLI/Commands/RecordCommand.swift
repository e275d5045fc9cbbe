import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import TapedeckCore
import TapedeckServer

/// `tapedeck record`: a recording proxy, reverse (`--target`) or forward (HTTP_PROXY/HTTPS_PROXY).
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record real HTTP exchanges into a cassette through a proxy.",
        discussion: """
        With --target, a reverse proxy: point your client's base URL at tapedeck. Without it, a
        forward proxy: set HTTP_PROXY/HTTPS_PROXY to the printed address and trust the local CA
        (`tapedeck ca path`) for HTTPS. Responses stream to the client as they arrive; each
        exchange is redacted and on disk within a second. Redirects are passed back, never
        followed. WebSocket upgrades and --passthrough-host hosts are tunnelled, not recorded.
        """)

    @Argument(help: "The cassette file to record into.")
    var cassette: String

    @Option(help: "Base URL of the service for a reverse proxy, such as https://api.example.com.")
    var target: String?

    @Option(help: "new-episodes (default), all or once.")
    var mode = "new-episodes"

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free one.")
    var port = 8080

    @Option(help: "Also redact this header, in requests and responses (repeatable).")
    var redactHeader: [String] = []

    @Option(help: "Also redact this query parameter and form field (repeatable).")
    var redactQuery: [String] = []

    @Option(help: "Also redact this JSON path in bodies, such as $.user.ssn (repeatable).")
    var redactJsonPath: [String] = []

    @Flag(help: "Do not apply the default redactions (Authorization, Cookie, tokens, passwords...).")
    var noDefaultRedactions = false

    @Option(help: "Trust this extra root certificate (PEM) for upstream TLS (repeatable).")
    var upstreamCa: [String] = []

    @Flag(help: "Do not verify upstream certificates (prints a warning).")
    var insecureUpstream = false

    @Option(help: "Tunnel this host untouched and do not record it (repeatable).")
    var passthroughHost: [String] = []

    @Option(help: "Seconds the upstream may stay silent before the answer is 504.")
    var upstreamTimeout = 60

    @Option(help: "Largest request body in bytes; larger ones get 413.")
    var maxBody = 64 << 20

    @Option(help: "Seconds a silent client connection is kept open.")
    var idleTimeout = 60

    @OptionGroup(title: "Stubs, secrets and expiry") var lifecycle: LifecycleOptions

    @OptionGroup var safety: ServerSafetyOptions

    func run() async throws {
        var configuration = ServerConfiguration(host: host, port: port, maxBodySize: maxBody,
                                                idleTimeout: .seconds(Int64(max(1, idleTimeout))))
        do { try safety.apply(to: &configuration) } catch {
            FileHandle.standardError.write(Data("tapedeck record: \(error)\n".utf8))
            throw ExitCode(2)
        }
        ServerSafetyOptions.warnIfExposed(host: host, command: "record")
        let responder: RecordResponder
        do {
            guard let recordMode = RecordMode(parsing: mode), recordMode != .replay else {
                throw SettingsError(message: "--mode must be new-episodes, all or once, not \"\(mode)\" (use `tapedeck replay` to replay)")
            }
            guard (0...65535).contains(port) else { throw SettingsError(message: "--port must be from 0 to 65535") }
            guard upstreamTimeout > 0 else { throw SettingsError(message: "--upstream-timeout must be positive") }
            var paths: [JSONPath] = []
            for text in redactJsonPath {
                do { paths.append(try JSONPath(text)) } catch { throw SettingsError(message: error.description) }
            }
            let redaction = (noDefaultRedactions ? RedactionRules.none : RedactionRules.defaults)
                .adding(headers: redactHeader, queryParameters: redactQuery, jsonPaths: paths)
            var playback = PlaybackOptions()
            try lifecycle.apply(to: &playback)
            var settings = RecordSettings(
                cassette: URL(filePath: cassette), target: target, mode: recordMode, redaction: redaction,
                trust: UpstreamTrust(extraRoots: upstreamCa.map { URL(filePath: $0) }, insecure: insecureUpstream),
                passthroughHosts: Set(passthroughHost), upstreamTimeout: .seconds(Int64(upstreamTimeout)), playback: playback)
            settings.stubs = try lifecycle.loadStubs()
            settings.hooks = lifecycle.hooks
            responder = try RecordResponder(settings: settings, configuration: configuration,
                                            authority: CertificateAuthority(home: configuration.authorityHome),
                                            onError: { message in FileHandle.standardError.write(Data("tapedeck record: \(message)\n".utf8)) })
        } catch {
            FileHandle.standardError.write(Data("tapedeck record: \(error)\n".utf8))
            throw ExitCode(2)
        }
        if insecureUpstream {
            FileHandle.standardError.write(Data("tapedeck record: warning: --insecure-upstream: upstream TLS certificates are NOT verified\n".utf8))
        }
        let server: TapedeckServer
        do {
            server = try await TapedeckServer.start(configuration: configuration, responder: responder,
                                                    group: MultiThreadedEventLoopGroup.singleton)
        } catch {
            FileHandle.standardError.write(Data("tapedeck record: cannot listen on \(host):\(port): \(error)\n".utf8))
            try? await responder.shutdown()
            throw ExitCode(1)
        }
        ListeningLine.announce(server)
        _ = await TerminationSignal.wait()
        try? await server.shutdown()
        do {
            try await responder.shutdown()
        } catch {
            FileHandle.standardError.write(Data("tapedeck record: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
