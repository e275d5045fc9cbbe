import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCore

/// Serves cassettes: every match decision is the core player's, every delay the latency
/// model's; responses come prepared from the deck. It never connects to any upstream.
public final class ReplayResponder: Responder {
    /// The cassettes given on the command line.
    public let deck: ReplayDeck
    /// The cassettes `Tapedeck-Cassette` selects, if a folder was given.
    public let library: CassetteLibrary?
    /// The journal of requests.
    public let journal: Journal
    /// The unmatched requests.
    public let unmatched: UnmatchedLog
    /// The local CA for intercepted HTTPS.
    public let authority: CertificateAuthority
    private let unmatchedStatus: HTTPResponseStatus
    private let admin: AdminEndpoints
    private let warn: @Sendable (String) -> Void

    /// Creates a responder over a deck.
    ///
    /// - Parameter warn: told of each expired interaction served (`--on-expired warn`), one line each.
    public init(deck: ReplayDeck, library: CassetteLibrary?, configuration: ServerConfiguration,
                authority: CertificateAuthority, warn: @escaping @Sendable (String) -> Void = { _ in }) {
        self.warn = warn
        self.deck = deck
        self.library = library
        self.journal = Journal(capacity: configuration.journalCapacity)
        self.unmatched = UnmatchedLog()
        self.authority = authority
        self.unmatchedStatus = HTTPResponseStatus(statusCode: configuration.unmatchedStatus, reasonPhrase: "Tapedeck No Match")
        admin = AdminEndpoints(
            mode: "replay",
            cassettes: { [deck] in (deck.player.cassettes, deck.player.interactions.count) },
            journal: journal, unmatched: unmatched, stubs: deck.player.stubs,
            resetPlayback: { [deck, library] in
                deck.player.reset()
                library?.loaded.forEach { $0.player.reset() }
            },
            authority: authority)
    }

    /// Loads cassette files and stub files and prepares them; a broken one throws naming the file and the place.
    public static func loadDeck(files: [URL], stubFiles: [URL] = [], options: PlaybackOptions,
                                hooks: PlaybackHooks = PlaybackHooks(), codec: CassetteCodec = CassetteCodec()) throws -> ReplayDeck {
        AllocatorTuning.beforeLoading()
        defer { AllocatorTuning.afterLoading() }
        var cassettes: [(name: String, cassette: Cassette)] = []
        for file in files { cassettes.append((file.relativePath, try codec.load(file))) }
        let stubs = try stubFiles.flatMap { try codec.load($0).stubs }
        return try ReplayDeck(cassettes: cassettes, options: options, hooks: hooks, stubs: stubs)
    }

    public func respond(to request: IncomingRequest, sink: ResponseSink) {
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
        let session = control.session.isEmpty ? nil : control.session
        switch deck.player.play(cassetteRequest, session: control.session) {
        case .played(let playback):
            journal.append(JournalEntry(played: playback, request: cassetteRequest, session: session))
            guard let response = deck.response(for: playback) else {
                sink.send(status: .internalServerError, body: ByteBuffer(string: "interaction not prepared\n"))
                return
            }
            if playback.isExpired { warn(ExpiryOptions.warning(for: playback)) }
            sink.serve(playback, prepared: response, to: request)
        case .unmatched(let diagnosis):
            journal.append(JournalEntry(time: Timestamp.now(), method: cassetteRequest.method, url: cassetteRequest.url,
                                        session: session, outcome: diagnosis.reason == .exhausted ? .exhausted : .unmatched))
            unmatched.append(diagnosis)
            sink.send(status: unmatchedStatus,
                      headers: HTTPHeaders([("Content-Type", "application/json"), ("Tapedeck-Error", diagnosis.reason.rawValue)]),
                      body: ByteBuffer(bytes: JSONBodies.encode(diagnosis)))
        }
    }

    public func connectPlan(host: String, port: Int) -> ConnectPlan {
        do {
            return .intercept(try authority.serverContext(for: host))
        } catch {
            return .refuse(status: 502, reason: "cannot intercept TLS for \(host): \(error)")
        }
    }

    private static let errorHeaders = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Tapedeck-Error", "bad-request")])
}
