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
        abstract: "Record HTTP exchanges into a cassette via a proxy.",
        discussion: """
        With --target, a reverse proxy: point your client's base URL at tapedeck. \
        Without it, a forward proxy: set http_proxy (lowercase: curl ignores HTTP_PROXY) and HTTPS_PROXY \
        to the printed address, and trust the local CA (`tapedeck ca path`) for HTTPS.

        HTTP/1.1 and HTTP/2 share the port (HTTP/2 by prior knowledge, or by ALPN inside intercepted \
        TLS); gRPC calls of every kind and WebSocket conversations are recorded as they pass. \
        Responses stream to the client as they arrive; each exchange is redacted and on disk within a \
        second. Redirects are passed back, never followed. --passthrough-host hosts are tunnelled, not \
        recorded.

        On a terminal it prints a line per recorded exchange (elsewhere with --verbose), and on exit \
        how many interactions it saved (not with --quiet).

        Examples:
          tapedeck record api.json --target https://api.example.com
          tapedeck record api.json --port 8888
        """)

    @Argument(help: "The cassette file to record into.")
    var cassette: String

    @Option(help: ArgumentHelp("Base URL of the service for a reverse proxy, such as https://api.example.com.", valueName: "URL"),
            transform: argument(ReverseProxyTarget.init, reason: \.reason))
    var target: ReverseProxyTarget?

    @Option(help: "What to record: new-episodes (replay what matches, record the rest), all or once.")
    var mode = RecordMode.newEpisodes

    @Option(help: ArgumentHelp("Trust this extra root certificate for upstream TLS (repeatable).", valueName: "PEM-FILE"))
    var upstreamCa: [String] = []

    @Flag(help: "Do not verify upstream certificates (prints a warning).")
    var insecureUpstream = false

    @Option(help: ArgumentHelp("Tunnel this host untouched and do not record it (repeatable).", valueName: "HOST"))
    var passthroughHost: [String] = []

    @Option(help: ArgumentHelp("How long the upstream may stay silent before the answer is 504.", valueName: "SECONDS"))
    var upstreamTimeout = 60

    @Option(help: ArgumentHelp("Most connections open to one upstream at once, over all clients; past it the answer is 503.",
                               valueName: "N"))
    var maxUpstreamConnections = 128

    @Flag(help: "Print a line per recorded exchange even when standard output is not a terminal.")
    var verbose = false

    @Flag(help: "Print no line per recorded exchange and no summary on exit.")
    var quiet = false

    @OptionGroup(title: "Server and limits") var server: ServerOptions

    @OptionGroup(title: "Redaction") var redaction: RedactionOptions

    @OptionGroup(title: "Stubs, secrets and expiry") var lifecycle: LifecycleOptions

    @OptionGroup var proto: ProtoDescriptorOptions

    @OptionGroup(title: "Access") var safety: ServerSafetyOptions

    @OptionGroup(title: "API contract") var contract: ContractOptions

    func validate() throws {
        guard mode != .replay else {
            throw ValidationError("--mode must be one of \(RecordMode.allValueStrings.joined(separator: ", ")) (use `tapedeck replay` to replay)")
        }
        guard upstreamTimeout > 0 else { throw ValidationError("--upstream-timeout must be positive") }
        guard maxUpstreamConnections > 0 else { throw ValidationError("--max-upstream-connections must be positive") }
        guard !(verbose && quiet) else { throw ValidationError("give --verbose or --quiet, not both") }
    }

    func run() async throws {
        var configuration = server.configuration
        safety.apply(to: &configuration)
        server.warnIfExposed()
        let feedback = RecordFeedback(quiet: quiet, verbose: verbose, isTerminal: isatty(STDOUT_FILENO) == 1, byPath: target != nil)
        let responder: RecordingMode
        do {
            var playback = PlaybackOptions()
            playback.match.protoSchema = proto.schema
            try lifecycle.apply(to: &playback)
            var settings = RecordSettings(
                cassette: URL(filePath: cassette), target: target, mode: mode, redaction: redaction.rules,
                trust: UpstreamTrust(extraRoots: upstreamCa.map { URL(filePath: $0) }, insecure: insecureUpstream),
                passthroughHosts: Set(passthroughHost), upstreamTimeout: .seconds(Int64(upstreamTimeout)), playback: playback)
            settings.maxUpstreamConnections = maxUpstreamConnections
            settings.stubs = try lifecycle.loadStubs()
            settings.hooks = lifecycle.hooks
            settings.hooks.afterRecord = feedback.afterRecord
            settings.contract = try contract.contract()
            responder = try RecordingMode(settings: settings, configuration: configuration,
                                            authority: CertificateAuthority(home: configuration.authorityHome))
        } catch {
            Diagnostic.error("\(error)")
            // Bad usage or input, but for a cassette another recorder holds: a failure of the moment.
            throw ExitCode((error as? CassetteError)?.isBadInput == false ? 1 : 2)
        }
        if insecureUpstream {
            Diagnostic.warning("--insecure-upstream: upstream TLS certificates are NOT verified")
        }
        let running: TapedeckServer
        let signals: TerminationSignal
        do {
            signals = try TerminationSignal.install()
            FileDescriptorLimit.raiseToHardLimit()
            running = try await TapedeckServer.start(configuration: configuration, mode: responder,
                                                     group: MultiThreadedEventLoopGroup.singleton)
        } catch {
            Diagnostic.error("\(error)")
            try? await responder.shutdown()
            throw ExitCode(1)
        }
        ListeningLine.announce(running)
        _ = await signals.wait()
        let underWay = responder.exchangesUnderWay
        if underWay > 0 {
            FileHandleOutput.standardError("\(Diagnostic.prefix): finishing \(underWay) exchange(s) under way and saving the cassette; a second signal stops at once")
        }
        try? await running.shutdown()
        defer { configuration.removeUploadFolder() }
        do {
            try await responder.shutdown()
        } catch {
            Diagnostic.error("\(error)")
            throw ExitCode(1)
        }
        feedback.finish(cassette: cassette, holding: responder.recorder.interactionCount)
    }
}
