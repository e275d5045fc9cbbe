import ArgumentParser
import Foundation
import NIOCore
import TapedeckCore
import TapedeckServer
import TapedeckTooling

/// `tapedeck replay`: serve cassettes over HTTP, directly and as a forward proxy.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Serve cassettes and stubs; never calls upstream.",
        discussion: """
        Requests sent straight to the server match any recorded host. As a forward proxy \
        (http_proxy / HTTPS_PROXY) it answers absolute-form http requests, and CONNECT with \
        TLS interception by the local CA (see `tapedeck ca`), so the host rule applies. \
        Unmatched requests get --unmatched-status (599) with a JSON diagnosis; an unmatched gRPC \
        call gets UNIMPLEMENTED with the same diagnosis in grpc-message. HTTP/1.1 and HTTP/2 share \
        the port; recorded WebSocket conversations are played back.

        Admin endpoints, under /__tapedeck/ on the same port: \(AdminEndpoints.namesInProse).

        Examples:
          tapedeck replay cassettes/example.json
          tapedeck replay --port 0 --stubs stubs.json --latency recorded api.json
        """)

    @Argument(help: "Cassette files, searched in order.")
    var cassettes: [String] = []

    @Option(help: "Folder of cassettes that the Tapedeck-Cassette: NAME header selects (NAME.json).")
    var cassetteDir: String?

    @Option(help: ArgumentHelp("Status of an unmatched request.", valueName: "STATUS"))
    var unmatchedStatus = 599

    @OptionGroup(title: "Server and limits") var server: ServerOptions

    @OptionGroup(title: "Matching and playback") var playback: PlaybackArguments

    @OptionGroup(title: "Stubs, secrets and expiry") var lifecycle: LifecycleOptions

    @OptionGroup(title: "Access") var safety: ServerSafetyOptions

    @OptionGroup(title: "API contract") var contract: ContractOptions

    func validate() throws {
        guard !cassettes.isEmpty || cassetteDir != nil || !lifecycle.stubFiles.isEmpty || contract.openapi != nil else {
            throw ValidationError("give at least one cassette, --stubs FILE, --cassette-dir or --openapi SPEC")
        }
        guard AnswerStatusRule.stubbed.contains(unmatchedStatus) else {
            throw ValidationError("--unmatched-status must be from 100 to 999, not \(unmatchedStatus)")
        }
    }

    func run() async throws {
        var options = playback.options
        let deck: ReplayDeck
        do {
            try lifecycle.apply(to: &options)
            deck = try ReplayMode.loadDeck(files: cassettes.map { URL(filePath: $0) },
                                                stubFiles: lifecycle.stubFiles.map { URL(filePath: $0) },
                                                options: options, hooks: lifecycle.hooks, contract: try contract.contract(seed: playback.seed))
        } catch {
            Diagnostic.error("\(error)")
            throw ExitCode(2)
        }
        var configuration = server.configuration
        configuration.unmatchedStatus = unmatchedStatus
        configuration.cassetteDirectory = cassetteDir.map { URL(filePath: $0, directoryHint: .isDirectory) }
        safety.apply(to: &configuration)
        server.warnIfExposed()
        let library = configuration.cassetteDirectory.map { CassetteLibrary(directory: $0, options: options) }
        let responder = ReplayMode(deck: deck, library: library, configuration: configuration,
                                        authority: CertificateAuthority(home: configuration.authorityHome))
        let running: TapedeckServer
        let signals: TerminationSignal
        do {
            signals = try TerminationSignal.install()
            FileDescriptorLimit.raiseToHardLimit()
            running = try await TapedeckServer.start(configuration: configuration, mode: responder)
        } catch {
            Diagnostic.error("\(error)")
            throw ExitCode(1)
        }
        ListeningLine.announce(running)
        _ = await signals.wait()
        try? await running.shutdown()
        configuration.removeUploadFolder()
    }
}
