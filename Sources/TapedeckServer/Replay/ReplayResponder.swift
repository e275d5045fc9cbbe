import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TapedeckCore

/// Serves cassettes: every match decision is the core player's, every delay the latency
/// model's; responses come prepared from the deck. It never connects to any upstream.
package final class ReplayResponder: Responder {
    /// The cassettes given on the command line.
    package let deck: ReplayDeck
    /// The cassettes `Tapedeck-Cassette` selects, if a folder was given.
    package let library: CassetteLibrary?
    /// The local CA for intercepted HTTPS.
    package let authority: CertificateAuthority
    private let answers: PlaybackAnswers
    private let admin: AdminEndpoints

    /// The journal of requests.
    package var journal: Journal { answers.journal }
    /// The unmatched requests.
    package var unmatched: UnmatchedLog { answers.unmatched }

    /// Creates a responder over a deck.
    ///
    /// - Parameter logger: warned of each expired interaction served (expiry policy `warn`), one line each.
    package init(deck: ReplayDeck, library: CassetteLibrary?, configuration: ServerConfiguration,
                authority: CertificateAuthority, logger: Logger = Logger(label: "tapedeck.replay")) {
        self.deck = deck
        self.library = library
        self.authority = authority
        let answers = PlaybackAnswers(configuration: configuration, logger: logger, secrets: deck.player.options.secrets)
        self.answers = answers
        var admin = AdminEndpoints(
            mode: "replay",
            cassettes: { [deck] in (deck.player.cassettes, deck.player.interactions.count) },
            journal: answers.journal, unmatched: answers.unmatched, stubs: deck.player.stubs,
            resetPlayback: { [deck, library] in
                deck.player.reset()
                library?.loaded.forEach { $0.player.reset() }
            },
            authority: authority, guardian: AdminGuard(configuration), redaction: answers.redaction)
        admin.inspector = answers.exchanges.map { exchanges in
            Inspector(mode: "replay", exchanges: exchanges,
                      players: { [deck, library] in [deck.player] + (library?.loaded.map(\.player) ?? []) })
        }
        self.admin = admin
    }

    /// Loads cassette files and stub files and prepares them; a broken one throws naming the file and the place.
    package static func loadDeck(files: [URL], stubFiles: [URL] = [], options: PlaybackOptions,
                                hooks: PlaybackHooks = PlaybackHooks(), codec: CassetteCodec = CassetteCodec()) throws -> ReplayDeck {
        AllocatorTuning.beforeLoading()
        defer { AllocatorTuning.afterLoading() }
        var cassettes: [(name: String, cassette: Cassette)] = []
        for file in files { cassettes.append((file.relativePath, try codec.load(file))) }
        let stubs = try stubFiles.flatMap { try codec.load($0).stubs }
        return try ReplayDeck(cassettes: cassettes, options: options, hooks: hooks, stubs: stubs)
    }

    package func respond(to request: IncomingRequest, sink: ResponseSink) {
        if request.isAdmin {
            admin.respond(to: request, sink: sink)
            return
        }
        let control = ControlHeaders(request.head.headers)
        var deck = self.deck
        if let name = control.cassette {
            guard let library else {
                sink.send(status: .badRequest, headers: Self.errorHeaders,
                          body: ByteBuffer(string: "Tapedeck-Cassette needs the server started with --cassette-dir\n"))
                return
            }
            switch library.deck(named: name) {
            case .success(let selected): deck = selected
            case .failure(let error):
                sink.send(status: .badRequest, headers: Self.errorHeaders, body: ByteBuffer(string: error.reason + "\n"))
                return
            }
        }
        let cassetteRequest = request.cassetteRequest()
        switch deck.player.play(cassetteRequest, session: control.session) {
        case .played(let playback):
            guard let response = deck.response(for: playback) else {
                sink.send(status: .internalServerError, body: ByteBuffer(string: "interaction not prepared\n"))
                return
            }
            answers.serve(playback, prepared: response, for: cassetteRequest, session: control.session, to: request, sink: sink)
        case .unmatched(let diagnosis):
            answers.refuse(diagnosis, for: cassetteRequest, session: control.session, sink: sink)
        }
    }

    package func connectPlan(host: String, port: Int) -> ConnectPlan {
        do {
            return .intercept(try authority.serverContext(for: host))
        } catch {
            return .refuse(status: 502, reason: "cannot intercept TLS for \(host): \(error)")
        }
    }

    private static let errorHeaders = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Tapedeck-Error", "bad-request")])
}
