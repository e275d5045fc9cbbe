import Foundation

/// The recording policy shared by the recording proxy and the in-process connector: decides
/// whether a request is replayed or forwarded, and records forwarded exchanges durably,
/// redacted, in the order they finish.
///
/// Interactions recorded during a run are not served back in that run, so polling the same
/// URL records every answer.
package final class Recorder: Sendable {
    /// What to do with one request.
    package enum Route: Sendable {
        /// Serve this recorded interaction.
        case replay(Playback)
        /// Send it to the live service and record the exchange.
        case forward
        /// Neither: the mode forbids recording and nothing matches.
        case unmatched(MatchDiagnosis)
    }

    /// The mode in force.
    package let mode: RecordMode
    /// The cassette file.
    package let file: URL
    /// The player serving what the cassette already holds.
    package let player: Player
    private let redactor: Redactor
    private let secrets: Secrets
    private let expiryPolicy: ExpiryPolicy
    private let beforeRecord: (@Sendable (Interaction) -> Interaction)?
    private let afterRecord: (@Sendable (Interaction) -> Void)?
    private let writer: CassetteWriter?
    /// Held while this recorder may write the cassette, so that no other records it meanwhile.
    private let lock: CassetteLock?
    /// The method and path of every interaction the cassette held when opened (`METHOD path`), for
    /// ``forwardsWhateverTheBody(_:)``: one lookup per call instead of a walk over the cassette.
    private let recordedMethodsAndPaths: Set<String>

    /// Opens a cassette for recording.
    ///
    /// - Parameters:
    ///   - file: the cassette; created on the first recorded interaction when missing.
    ///   - mode: `replay` and `once` (with an existing cassette) never record.
    ///   - flushDelay: how long saves are coalesced; the file is never further behind than this.
    ///   - keepsSpareFile: save by appending to a spare copy kept beside the cassette, so a long
    ///     recording costs linear time (see ``finish()``); otherwise each save writes the whole file.
    ///   - hooks: custom match rules and `beforePlayback` for what is replayed, `beforeRecord` for what is
    ///     written, `afterRecord` told of each interaction written.
    ///   - stubs: stubs given in code, consulted after the cassette's own when no recording
    ///     matches: a stub wins over the network.
    ///   - onSaveError: called from the background saver when a save fails (disk full, say).
    /// - Throws: ``CassetteError`` when the cassette does not read, or when another recorder
    ///   records it (``CassetteLock``).
    package init(file: URL, mode: RecordMode, redaction: RedactionRules = .defaults,
                playback: PlaybackOptions = PlaybackOptions(), hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = [],
                codec: CassetteCodec = CassetteCodec(),
                flushDelay: Duration = .milliseconds(200), keepsSpareFile: Bool = false,
                onSaveError: @escaping @Sendable (CassetteError) -> Void = { _ in }) throws(CassetteError) {
        let exists = FileManager.default.fileExists(atPath: file.path)
        let records = mode.records(cassetteExists: exists)
        // Taken before the cassette is read: what this recorder saves starts from what it read.
        lock = records ? try CassetteLock(for: file) : nil
        // `all` starts a fresh cassette: its old interactions go, its hand-written stubs stay (when it still parses).
        var existing: Cassette? = exists ? (mode == .all ? try? codec.load(file) : try codec.load(file)) : nil
        if mode == .all { existing?.interactions = [] }
        if mode == .replay && existing == nil {
            throw CassetteError(file: file.path, kind: .io(
                "the cassette does not exist; record it first (TAPEDECK_MODE=once or new-episodes, or `tapedeck record`)"))
        }
        self.mode = mode
        self.file = file
        self.redactor = Redactor(rules: redaction)
        self.secrets = playback.secrets
        self.expiryPolicy = playback.expiry.policy
        self.beforeRecord = hooks.beforeRecord
        self.afterRecord = hooks.afterRecord
        self.player = Player(cassette: existing ?? Cassette(), name: file.path, options: playback, hooks: hooks, stubs: stubs)
        recordedMethodsAndPaths = Set(player.interactions.map { RecordedChat.key(method: $0.request.method, path: $0.request.target.path) })
        let meta = mode == .all ? .now() : existing?.meta ?? .now()
        self.writer = records
            ? CassetteWriter(file: file, codec: codec, meta: meta, existing: existing?.interactions ?? [],
                             stubs: existing?.stubsJSON ?? [], flushDelay: flushDelay, keepsSpare: keepsSpareFile, onError: onSaveError)
            : nil
    }

    /// Whether this recorder may forward and record at all.
    package var isRecording: Bool { writer != nil }

    /// Decides what to do with a request.
    package func route(_ request: CassetteRequest, session: String = "") -> Route {
        guard let route = route(request, session: session, quickly: false) else {
            preconditionFailure("a request is always routed when its caller may wait")
        }
        return route
    }

    /// ``route(_:session:)``; `quickly` for a caller that must not wait: nil then when routing would
    /// evaluate a stub's regular expression (``Player/play(_:session:explainingMisses:quickly:)``).
    package func route(_ request: CassetteRequest, session: String = "", quickly: Bool) -> Route? {
        guard let played = player.play(request, session: session, explainingMisses: !isRecording, quickly: quickly) else { return nil }
        switch played {
        case .played(let playback): return .replay(playback)
        case .unmatched(let diagnosis) where diagnosis.reason == .expired && expiryPolicy == .error:
            return .unmatched(diagnosis)
        case .unmatched(let diagnosis): return isRecording ? .forward : .unmatched(diagnosis)
        }
    }

    /// Whether `request` goes to the upstream whatever its body turns out to be: this recorder
    /// records, and neither a recorded interaction nor a stub has its method and path (a stub of
    /// any method or path counts: its pattern is not read here). A call whose client waits for
    /// answers before it sends its whole body is forwarded as it arrives only then.
    package func forwardsWhateverTheBody(_ request: CassetteRequest) -> Bool {
        guard isRecording, player.stubs.list().isEmpty else { return false }
        return !recordedMethodsAndPaths.contains(RecordedChat.key(method: request.method, path: request.target.path))
    }

    /// Where a response body of `contentType` being received goes once it grows past its
    /// ``spoolingThreshold(contentType:)``: a new ``SideFileSpool`` in the cassette's bodies folder,
    /// so a large download is recorded as it passes instead of in memory, with the secrets' values
    /// replaced (``Secrets/concealingStream()``) and redacted (``Redactor/streamingRedaction(contentType:)``)
    /// piece by piece. Nil when this recorder does not record.
    package func spoolForLargeBody(contentType: String?) throws(SideFileError) -> SideFileSpool? {
        guard let folder = writer?.bodiesFolder else { return nil }
        return try SideFileSpool(folder: folder, concealing: secrets.concealingStream(),
                                 redacting: redactor.streamingRedaction(contentType: contentType))
    }

    /// How many bytes of a response body of `contentType` are received in memory before it goes to
    /// a side file as it passes: ``sideFileThreshold``, or ``Body/wholeReadLimit`` for a body that
    /// redaction or a secret may rewrite (JSON under JSON-path rules, any body when secrets are
    /// set), so that it is redacted whole before any of it is written. A larger one is redacted
    /// piece by piece as its side file is installed (``spoolForLargeBody(contentType:)``).
    package func spoolingThreshold(contentType: String?) -> Int {
        let mayBeRewritten = !secrets.isEmpty || redactor.rewritesJSON(contentType: contentType)
        return mayBeRewritten ? max(sideFileThreshold, Body.wholeReadLimit) : sideFileThreshold
    }

    /// Bodies above this many bytes are kept in side files (``spoolForLargeBody()``).
    package var sideFileThreshold: Int { writer?.sideFileThreshold ?? CassetteCodec.defaultSideFileThreshold }

    /// The request as the live service must receive it: the placeholder of every secret that may go
    /// to its host (``Secrets/revealable(to:home:)``) replaced by its value.
    package func requestForUpstream(_ request: CassetteRequest, home: Secrets.Home = .anyHost) -> CassetteRequest {
        secrets.revealable(to: request.target.host, home: home).reveal(request)
    }

    /// Passes an exchange through `beforeRecord`, redacts it, replaces secret values by their
    /// placeholders and appends it; it is on disk within the flush delay.
    @discardableResult
    package func record(_ interaction: consuming Interaction) throws(CassetteError) -> Interaction {
        guard let writer else {
            throw CassetteError(file: file.path, kind: .io("mode \(mode.rawValue) does not record"))
        }
        if let beforeRecord { interaction = beforeRecord(interaction) }
        // Messages decompressed first, so that redaction and the secrets see them as they are.
        GRPCCall.keepMessages(in: &interaction)
        var clean = cleaned(interaction)
        clean.request.headers.removeHopByHop()
        clean.response.trailers = clean.response.trailers?.asTrailers(of: clean.response.headers)
        clean.response.headers.removeHopByHop()
        writer.append(clean)
        afterRecord?(clean)
        return clean
    }

    /// The interaction with the secrets' values replaced and redacted. A side-file body was cleaned
    /// piece by piece as its spool installed it (``spoolForLargeBody(contentType:)``) and is not
    /// read whole again, even when cleaning brought it under ``Body/wholeReadLimit`` (a 32 MiB JSON
    /// body parsed whole takes hundreds of MB).
    private func cleaned(_ inMemory: consuming Interaction) -> Interaction {
        let spooledRequest = inMemory.request.body.file == nil ? nil : inMemory.request.body
        let spooledResponse = inMemory.response.body.file == nil ? nil : inMemory.response.body
        if spooledRequest != nil { inMemory.request.body = .empty }
        if spooledResponse != nil { inMemory.response.body = .empty }
        var (clean, _) = redactor.redact(secrets.conceal(inMemory))
        clean.request.body = spooledRequest ?? clean.request.body
        clean.response.body = spooledResponse ?? clean.response.body
        return clean
    }

    /// Writes everything recorded so far and waits until it is on disk.
    package func flush() throws(CassetteError) {
        try writer?.flush()
    }

    /// Writes everything recorded so far, waits until it is on disk and removes the spare file:
    /// for the end of a recording. Another recorder may then open the cassette (``CassetteLock``).
    package func finish() throws(CassetteError) {
        defer { lock?.release() }
        try writer?.finish()
    }

    /// How many interactions the cassette holds now: the earlier ones and those recorded in this run.
    package var interactionCount: Int { writer?.interactionCount ?? player.interactions.count }

    /// The stubs consulted before forwarding, and the request log `verify` reads.
    package var stubs: StubSet { player.stubs }

    /// Puts playback positions and stub scenarios back to the start.
    package func reset() { player.reset() }
}
