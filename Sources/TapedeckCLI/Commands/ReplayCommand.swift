import ArgumentParser
import Foundation
import NIOCore
import TapedeckCore
import TapedeckServer

/// `tapedeck replay`: serve cassettes over HTTP, directly and as a forward proxy.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Serve cassettes over HTTP; never connects to any upstream.",
        discussion: """
        Requests sent straight to the server match any recorded host. As a forward proxy
        (HTTP_PROXY / HTTPS_PROXY) it answers absolute-form http requests, and CONNECT with
        TLS interception by the local CA (see `tapedeck ca`), so the host rule applies.
        Unmatched requests get --unmatched-status (599) with a JSON diagnosis.
        Admin endpoints: /__tapedeck/health, journal, unmatched, reset (POST), ca.pem.
        """)

    @Argument(help: "Cassette files, searched in order.")
    var cassettes: [String] = []

    @Option(help: "Folder of cassettes that the Tapedeck-Cassette: NAME header selects (NAME.json).")
    var cassetteDir: String?

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind; 0 picks a free one.")
    var port = 8080

    @Option(help: "Latency: none, recorded, fixed:MS or scale:F.")
    var latency = "none"

    @Option(help: "Vary each delay by up to this percentage (deterministic with --seed).")
    var jitter: Double?

    @Option(help: "Seed of the jitter.")
    var seed: UInt64 = 0

    @Option(help: "When every matching interaction was played: repeat-last, error or cycle.")
    var onExhausted = "repeat-last"

    @Option(help: "Status of an unmatched request.")
    var unmatchedStatus = 599

    @Option(help: "Ignore this query parameter when matching (repeatable).")
    var ignoreQuery: [String] = []

    @Option(help: "Ignore this form field when matching (repeatable).")
    var ignoreFormField: [String] = []

    @Option(help: "Ignore this JSON path in bodies when matching, such as $.meta.requestId or $..nonce (repeatable).")
    var ignoreJsonPath: [String] = []

    @Flag(help: "Do not compare bodies.")
    var ignoreBody = false

    @Option(help: "Also match this request header (repeatable).")
    var matchHeader: [String] = []

    @Option(help: "Largest request body in bytes; larger ones get 413.")
    var maxBody = 64 << 20

    @Option(help: "Seconds a silent connection is kept open.")
    var idleTimeout = 60

    @OptionGroup(title: "Stubs, secrets and expiry") var lifecycle: LifecycleOptions

    @OptionGroup var safety: ServerSafetyOptions

    func run() async throws {
        var settings = ReplaySettings()
        settings.latency = latency
        settings.jitter = jitter
        settings.seed = seed
        settings.onExhausted = onExhausted
        settings.ignoredQuery = ignoreQuery
        settings.ignoredFormFields = ignoreFormField
        settings.ignoredJSONPaths = ignoreJsonPath
        settings.ignoreBody = ignoreBody
        settings.matchedHeaders = matchHeader
        var options: PlaybackOptions
        let deck: ReplayDeck
        do {
            guard !cassettes.isEmpty || cassetteDir != nil || !lifecycle.stubFiles.isEmpty else {
                throw SettingsError(message: "give at least one cassette, --stubs FILE or --cassette-dir")
            }
            guard (100...999).contains(unmatchedStatus) else {
                throw SettingsError(message: "--unmatched-status must be from 100 to 999, not \(unmatchedStatus)")
            }
            guard (0...65535).contains(port) else { throw SettingsError(message: "--port must be from 0 to 65535") }
            guard maxBody >= 0, idleTimeout > 0 else { throw SettingsError(message: "--max-body and --idle-timeout must be positive") }
            options = try settings.playbackOptions()
            try lifecycle.apply(to: &options)
            deck = try ReplayResponder.loadDeck(files: cassettes.map { URL(filePath: $0) },
                                                stubFiles: lifecycle.stubFiles.map { URL(filePath: $0) },
                                                options: options, hooks: lifecycle.hooks)
        } catch {
            FileHandle.standardError.write(Data("tapedeck replay: \(error)\n".utf8))
            throw ExitCode(2)
        }
        var configuration = ServerConfiguration(
            host: host, port: port, maxBodySize: maxBody, idleTimeout: .seconds(Int64(idleTimeout)),
            unmatchedStatus: unmatchedStatus, cassetteDirectory: cassetteDir.map { URL(filePath: $0, directoryHint: .isDirectory) })
        do { try safety.apply(to: &configuration) } catch {
            FileHandle.standardError.write(Data("tapedeck replay: \(error)\n".utf8))
            throw ExitCode(2)
        }
        ServerSafetyOptions.warnIfExposed(host: host, command: "replay")
        let library = configuration.cassetteDirectory.map { CassetteLibrary(directory: $0, options: options) }
        let responder = ReplayResponder(deck: deck, library: library, configuration: configuration,
                                        authority: CertificateAuthority(home: configuration.authorityHome),
                                        warn: { line in FileHandle.standardError.write(Data("tapedeck replay: \(line)\n".utf8)) })
        let server: TapedeckServer
        do {
            server = try await TapedeckServer.start(configuration: configuration, responder: responder)
        } catch {
            FileHandle.standardError.write(Data("tapedeck replay: cannot listen on \(host):\(port): \(error)\n".utf8))
            throw ExitCode(1)
        }
        ListeningLine.announce(server)
        _ = await TerminationSignal.wait()
        try? await server.shutdown()
    }
}
