import Foundation
import Logging
import NIOCore
import NIOHTTP1
import TapedeckCore

/// Replays cassettes: every match decision is the core player's, every delay the latency
/// model's; responses come prepared from the deck. It never connects to any upstream.
package final class ReplayMode: Mode {
    /// The cassettes given on the command line.
    package let deck: ReplayDeck
    /// The cassettes `Tapedeck-Cassette` selects, if a folder was given.
    package let library: CassetteLibrary?
    /// The local CA for intercepted HTTPS.
    package let authority: CertificateAuthority
    package let answers: PlaybackAnswers
    package let admin: AdminEndpoints
    /// The recorded chats (gRPC calls whose clients waited for answers), by method and path.
    private let recordedChats: [String: [RecordedChat]]
    package let chats: ChatRunner?

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
        let answers = PlaybackAnswers(configuration: configuration, logger: logger, secrets: deck.player.options.secrets,
                                      protoSchema: deck.player.options.match.protoSchema)
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
        recordedChats = RecordedChat.index(deck.player.interactions)
        chats = ChatRunner(deck: deck, answers: answers)
    }

    /// A gRPC call on an HTTP/2 stream whose method and path have recorded chats is played as its
    /// messages come (``ChatRunner``); every other request is decided whole.
    package func decideStreaming(_ request: IncomingRequest, control: ControlHeaders) -> Decision? {
        guard control.cassette == nil, !recordedChats.isEmpty,
              let candidates = recordedChats[RecordedChat.key(method: request.head.method.rawValue, path: request.path)] else { return nil }
        return .playChat(candidates, session: control.session)
    }

    /// Loads cassette files and stub files and prepares them; a broken one throws naming the file and the place.
    package static func loadDeck(files: [URL], stubFiles: [URL] = [], options: PlaybackOptions,
                                hooks: PlaybackHooks = PlaybackHooks(), contract: APIContract? = nil,
                                codec: CassetteCodec = CassetteCodec()) throws -> ReplayDeck {
        AllocatorTuning.beforeLoading()
        defer { AllocatorTuning.afterLoading() }
        var cassettes: [(name: String, cassette: Cassette)] = []
        for file in files { cassettes.append((file.relativePath, try codec.load(file))) }
        var stubCodec = codec
        stubCodec.document = .stubs
        let stubs = try stubFiles.flatMap { try stubCodec.load($0).stubs }
        return try ReplayDeck(cassettes: cassettes, options: options, hooks: hooks, stubs: stubs, contract: contract)
    }

    package func decide(_ request: IncomingRequest, control: ControlHeaders, quickly: Bool) -> Decision? {
        let deck: ReplayDeck
        if let name = control.cassette {
            guard let library else { return .refuse(Refusal(.badRequest, "Tapedeck-Cassette needs the server started with --cassette-dir")) }
            switch library.deck(named: name) {
            case .success(let selected): deck = selected
            case .failure(let error): return .refuse(Refusal(.badRequest, error.reason))
            }
        } else {
            deck = self.deck
        }
        let cassetteRequest = request.cassetteRequest()
        if let refusal = Decision.refusal(of: cassetteRequest, breaking: deck.player.contract) { return refusal }
        guard let played = deck.player.play(cassetteRequest, session: control.session, quickly: quickly) else { return nil }
        switch played {
        case .played(let playback):
            return .playing(playback, from: deck.prepared, request: cassetteRequest, session: control.session)
        case .unmatched(let diagnosis):
            return .unmatched(diagnosis, request: cassetteRequest, session: control.session)
        }
    }
}
