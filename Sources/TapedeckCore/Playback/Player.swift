import Foundation

/// Serves recorded interactions: matches a request, picks the first interaction not yet
/// played in its session, applies the exhaustion policy and computes the delay.
///
/// In order: secrets in the request become their `<NAME>` placeholders; the matcher finds the
/// candidates; custom rules (``PlaybackHooks``) and expiry (``ExpiryOptions``) narrow them; the
/// exhaustion policy picks one; `beforePlayback` may change it. Matching and marking an
/// interaction played is one step under a lock, so concurrent requests never receive the same
/// interaction when the policy forbids it.
package final class Player: Sendable {
    /// The interactions of all cassettes, in order.
    package let interactions: [Interaction]
    /// The options in force.
    package let options: PlaybackOptions
    /// The stubs consulted when no recording matches, their scenarios, and the request log `verify` reads.
    package let stubs: StubSet
    /// The API document that answers what neither a recording nor a stub does (`--openapi`).
    package let contract: APIContract?
    /// The document's operations that recordings answer, and only they.
    private let recordedOperations: Set<String>
    /// How each recorded answer breaks the document, checked once at load (by position).
    private let recordedAnswerViolations: [[String]]
    private let matcher: Matcher
    private let hooks: PlaybackHooks
    private let cassetteNames: [String]
    private let cassetteOfIndex: [Int]
    private let firstIndexOfCassette: [Int]
    /// The expiry age of each cassette, in days.
    private let expiryDays: [Double?]
    /// When each interaction was recorded, read once at load in the cassettes with an expiry age
    /// (nil in the others); empty when no cassette has one.
    private let recordedDates: [Date?]
    /// Whether any interaction can expire: some cassette has an expiry age.
    private var canExpire: Bool { !recordedDates.isEmpty }
    /// Playback positions per session, for at most ``sessionCapacity`` sessions (the least recently used is forgotten).
    private let playCounts = Locked(LRUCache<String, [Int: Int]>(capacity: Player.sessionCapacity))

    /// The most playback sessions kept at once: 10,000.
    package static let sessionCapacity = 10_000

    /// Creates a player over one or more named cassettes, searched in order.
    ///
    /// - Parameter stubs: stubs given in code, consulted after the cassettes' own stubs.
    /// - Parameter contract: an API document answering what no recording and no stub does.
    package init(cassettes: [(name: String, cassette: Cassette)], options: PlaybackOptions = PlaybackOptions(),
                hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = [], contract: APIContract? = nil) {
        var interactions: [Interaction] = []
        var cassetteOfIndex: [Int] = []
        var firstIndexOfCassette: [Int] = []
        for (number, entry) in cassettes.enumerated() {
            firstIndexOfCassette.append(interactions.count)
            interactions += entry.cassette.interactions
            cassetteOfIndex += Array(repeating: number, count: entry.cassette.interactions.count)
        }
        self.interactions = interactions
        self.options = options
        self.cassetteNames = cassettes.map(\.name)
        self.cassetteOfIndex = cassetteOfIndex
        self.firstIndexOfCassette = firstIndexOfCassette
        let expiryDays = cassettes.map { options.expiry.days(for: $0.cassette.meta) }
        self.expiryDays = expiryDays
        recordedDates = !expiryDays.contains { $0 != nil } ? [] : zip(interactions, cassetteOfIndex).map { interaction, cassette in
            expiryDays[cassette] == nil ? nil : interaction.recordedAt.flatMap(ExpiryOptions.parse)
        }
        self.hooks = hooks
        self.stubs = StubSet(cassettes.flatMap(\.cassette.stubs) + stubs, seed: options.latency.jitter?.seed ?? 0, now: hooks.now,
                             maxTemplateOutput: options.maxTemplateOutput)
        self.matcher = Matcher(interactions: interactions, options: options.match)
        self.contract = contract
        recordedOperations = contract?.operations(recordedIn: interactions) ?? []
        recordedAnswerViolations = contract.map { contract in
            interactions.map { contract.answerViolations(of: $0).map(\.line) }
        } ?? []
    }

    /// Creates a player over one cassette.
    package convenience init(cassette: Cassette, name: String, options: PlaybackOptions = PlaybackOptions(),
                            hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = []) {
        self.init(cassettes: [(name, cassette)], options: options, hooks: hooks, stubs: stubs)
    }

    /// The names of the cassettes, in search order.
    package var cassettes: [String] { cassetteNames }

    /// Each cassette's name with its interactions, in search order.
    package var cassetteContents: [(name: String, interactions: ArraySlice<Interaction>)] {
        cassetteNames.indices.map { number in
            let end = number + 1 < firstIndexOfCassette.count ? firstIndexOfCassette[number + 1] : interactions.count
            return (cassetteNames[number], interactions[firstIndexOfCassette[number]..<end])
        }
    }

    /// Serves a request for a session (`""` is the shared default session).
    ///
    /// A miss comes back with its nearest recordings and stubs unless `explainingMisses` is false:
    /// a caller that forwards what does not match (the recording proxy) skips that search, and
    /// gets a diagnosis naming only the reason and the request's method and URL.
    package func play(_ incoming: CassetteRequest, session: String = "", explainingMisses: Bool = true) -> PlaybackResult {
        guard let result = play(incoming, session: session, explainingMisses: explainingMisses, quickly: false) else {
            preconditionFailure("a request is always played when its caller may wait")
        }
        return result
    }

    /// ``play(_:session:explainingMisses:)``; `quickly` for a caller that must not wait (a
    /// server's event loop): nil then, with nothing played or logged, when the request reaches the
    /// stubs and one of them matches with a regular expression, whose evaluation may take up to
    /// its budget (``StubRegex``). The caller plays it again where waiting harms no one.
    package func play(_ incoming: CassetteRequest, session: String = "", explainingMisses: Bool = true,
                      quickly: Bool) -> PlaybackResult? {
        let result = answer(incoming, session: session, explainingMisses: explainingMisses, quickly: quickly)
        guard let contract, let result else { return result }
        switch result {
        case .played(let playback):
            // A recorded answer was checked at load; a stub's or the document's is made for this request.
            let answer = playback.position >= 0 ? recordedAnswerViolations[playback.position]
                : contract.answerViolations(of: playback.interaction).map(\.line)
            let found = contract.violations(of: incoming).map(\.line) + answer
            return found.isEmpty ? result : .played(playback.noting(found))
        case .unmatched(var diagnosis):
            diagnosis.violations = contract.violations(of: incoming).map(\.line)
            return .unmatched(diagnosis)
        }
    }

    /// The answer to a request, from the recordings, the stubs or the API document.
    private func answer(_ incoming: CassetteRequest, session: String, explainingMisses: Bool, quickly: Bool) -> PlaybackResult? {
        let request = options.secrets.conceal(incoming)
        let matched = matcher.matches(request)
        let candidates = answering(request, among: matched)
        // Only a request no recording answers consults the stubs (their answers, or their near misses).
        if candidates.isEmpty, quickly, stubs.mayMatchSlowly { return nil }
        stubs.log(request, session: session)
        guard !candidates.isEmpty else {
            if let served = stubs.answer(request, session: session) { return .played(playback(of: served, for: request)) }
            if let documented = contract?.answer(for: request, unless: recordedOperations) {
                return .played(playback(ofDocumented: documented, for: request))
            }
            guard explainingMisses else { return .unmatched(unexplainedMiss(of: request)) }
            let nearest = matched.isEmpty
                ? matcher.nearMisses(for: request)
                : matched.prefix(3).map { ($0, failedCustomRules(matched: $0, request)) }
            var unmatched = diagnosis(for: request, reason: .noMatch, nearest: nearest)
            #if GraphQL
            unmatched.errors = matcher.graphQLMiss(for: request).map { [MatchDiagnosis.GraphQLError(message: $0)] }
            #endif
            let nearestStubs = stubs.nearMisses(for: request, session: session).map {
                MatchDiagnosis.StubNearMiss(id: $0.stub.id, name: $0.stub.name, failedField: $0.failure.field,
                                            difference: $0.failure.difference)
            }
            unmatched.nearestStubs = nearestStubs
            unmatched.hint = Self.missHint(hasRecordings: !interactions.isEmpty, nearestStubs: nearestStubs)
            if let misfit = contract?.misfit(request) { unmatched.hint = "The API document does not answer it: \(misfit). " + unmatched.hint }
            return .unmatched(unmatched)
        }
        return play(request, as: incoming, among: candidates, session: session)
    }

    /// Plays a request only when a recording answers it, and leaves no trace when none does (no
    /// stub consulted, no diagnosis): how a chat is tried as its messages come (``GRPCChat``),
    /// before its call is matched whole like any request. It never waits. Nothing goes into the
    /// stubs' request log: a chat is tried with its recording's body, and its caller logs what the
    /// client sent once its messages are in (``logReceived(_:session:)``).
    package func playRecording(_ incoming: CassetteRequest, session: String = "") -> Playback? {
        let request = options.secrets.conceal(incoming)
        let candidates = answering(request, among: matcher.matches(request))
        guard !candidates.isEmpty, case .played(let playback) = play(request, as: incoming, among: candidates, session: session) else {
            return nil
        }
        return playback
    }

    /// Puts a request played by ``playRecording(_:session:)`` into the stubs' request log (what
    /// verification counts), its secrets concealed: a chat, with the messages its client sent.
    package func logReceived(_ incoming: CassetteRequest, session: String = "") {
        stubs.log(options.secrets.conceal(incoming), session: session)
    }

    /// The recordings the matcher found that the custom rules let answer the request.
    private func answering(_ request: CassetteRequest, among matched: [Int]) -> [Int] {
        hooks.rules.isEmpty ? matched : matched.filter { failedCustomRules(matched: $0, request).isEmpty }
    }

    /// Plays one of the recordings that answer a request (its secrets concealed; `incoming` as
    /// received, for `beforePlayback`): expiry and the exhaustion policy choose, or say why none.
    private func play(_ request: CassetteRequest, as incoming: CassetteRequest, among candidates: [Int],
                      session: String) -> PlaybackResult {
        // Without an expiry age nothing expires: no clock to read, no candidate to filter.
        let now = canExpire ? hooks.now() : nil
        var servable = candidates
        if let now, options.expiry.policy != .warn {
            servable = candidates.filter { !isExpired($0, now: now) }
            if servable.isEmpty {
                return .unmatched(diagnosis(for: request, reason: .expired, nearest: candidates.suffix(3).map { ($0, []) }))
            }
        }
        let choice = playCounts.withLock { sessions in
            Self.choose(among: servable, counts: &sessions[session, default: [:]], policy: options.exhaustion)
        }
        guard let choice else {
            return .unmatched(diagnosis(for: request, reason: .exhausted, nearest: servable.suffix(3).map { ($0, []) }))
        }
        var interaction = interactions[choice.index]
        if let beforePlayback = hooks.beforePlayback { interaction = beforePlayback(interaction, incoming) }
        let delay = options.latency.delay(for: interaction, index: choice.index, playCount: choice.playCount)
        let conversation = interaction.websocket.map { WebSocketConversation($0, latency: options.latency.option, secrets: options.secrets) }
        return .played(Playback(
            interaction: consume interaction,
            cassette: cassetteNames[cassetteOfIndex[choice.index]],
            index: choice.index - firstIndexOfCassette[cassetteOfIndex[choice.index]],
            position: choice.index,
            playCount: choice.playCount,
            delay: delay,
            isExpired: now.map { isExpired(choice.index, now: $0) } ?? false,
            conversation: conversation))
    }

    /// A stub's answer as a playback: an interaction made of the request and the stub's response.
    private func playback(of served: StubSet.Served, for request: CassetteRequest) -> Playback {
        let response = served.response
        let delay = LatencyModel.duration(milliseconds: response.delayMs ?? 0)
        return Playback(
            interaction: Interaction(request: request,
                                     response: CassetteResponse(status: response.status, headers: response.headers, body: response.body,
                                                                trailers: response.trailers),
                                     delayMs: response.delayMs, websocket: response.websocket),
            cassette: "stubs", index: -1, position: -1, playCount: served.playCount,
            delay: ResponseDelay(head: delay, total: delay),
            stub: Playback.StubServed(id: served.stub.id, name: served.stub.name),
            fault: response.fault,
            conversation: response.websocket.map { WebSocketConversation($0, latency: options.latency.option, secrets: options.secrets) })
    }

    /// The API document's answer as a playback, named as a stub would be (`openapi`).
    private func playback(ofDocumented response: CassetteResponse, for request: CassetteRequest) -> Playback {
        Playback(interaction: Interaction(request: request, response: response), cassette: "openapi", index: -1, position: -1,
                 playCount: 0, delay: ResponseDelay(head: .zero, total: .zero),
                 stub: Playback.StubServed(id: "openapi", name: "the API document"))
    }

    /// The custom rules the interaction at `index` fails for the request, as rule failures.
    private func failedCustomRules(matched index: Int, _ request: CassetteRequest) -> [RuleFailure] {
        hooks.rules.filter { !$0.matches(interactions[index].request, request) }
            .map { RuleFailure(rule: .custom($0.name), difference: "the custom rule \"\($0.name)\" rejected it") }
    }

    /// Whether the interaction at a global index is older than its cassette's expiry age; asked
    /// only when some cassette has one (``canExpire``), so the recorded dates were read.
    private func isExpired(_ index: Int, now: Date) -> Bool {
        ExpiryOptions.isExpired(recorded: recordedDates[index], days: expiryDays[cassetteOfIndex[index]], now: now)
    }

    /// Picks the interaction to serve and counts the play; nil when exhausted under `error`.
    private static func choose(among candidates: [Int], counts: inout [Int: Int],
                               policy: ExhaustionPolicy) -> (index: Int, playCount: Int)? {
        let chosen: Int
        if let fresh = candidates.first(where: { counts[$0] == nil }) {
            chosen = fresh
        } else {
            switch policy {
            case .repeatLast: chosen = candidates[candidates.count - 1]
            case .error: return nil
            case .cycle:
                // The first of the least played.
                chosen = candidates.min { counts[$0, default: 0] < counts[$1, default: 0] }!
            }
        }
        let playCount = counts[chosen, default: 0]
        counts[chosen] = playCount + 1
        return (chosen, playCount)
    }

    /// Puts every session back to the start: playback positions, stub scenarios, and the request log.
    package func reset() {
        playCounts.withLock { $0.removeAll() }
        stubs.reset()
    }

    /// How often each interaction was played, over all sessions, by cassette and position.
    package func playedCounts() -> [(cassette: String, index: Int, count: Int)] {
        let totals = playCounts.withLock { sessions in
            sessions.values.reduce(into: [Int: Int]()) { sum, counts in counts.forEach { sum[$0.key, default: 0] += $0.value } }
        }
        return totals.keys.sorted().map { global in
            let cassette = cassetteOfIndex[global]
            return (cassetteNames[cassette], global - firstIndexOfCassette[cassette], totals[global]!)
        }
    }

    private func diagnosis(for request: CassetteRequest, reason: MatchDiagnosis.Reason,
                           nearest: [(index: Int, failures: [RuleFailure])]) -> MatchDiagnosis {
        MatchDiagnosis(
            reason: reason,
            request: MatchDiagnosis.ReceivedRequest(request),
            cassettes: cassetteNames,
            rules: options.match.ruleDescriptions + hooks.rules.map { "custom rule \"\($0.name)\"" }
                + ["when exhausted: \(options.exhaustion.rawValue)"],
            nearest: nearest.map { entry in
                let cassette = cassetteOfIndex[entry.index]
                let recorded = interactions[entry.index].request
                return MatchDiagnosis.NearMiss(
                    index: entry.index - firstIndexOfCassette[cassette], cassette: cassetteNames[cassette],
                    method: recorded.method, url: recorded.url,
                    failedRules: entry.failures.map(\.rule.name), differences: entry.failures.map(\.difference))
            },
            hint: Self.hint(for: reason))
    }

    /// A miss the caller will not explain: its reason, the request's method and URL, and nothing
    /// costly (no copy of headers and body, no list of rules).
    private func unexplainedMiss(of request: CassetteRequest) -> MatchDiagnosis {
        MatchDiagnosis(reason: .noMatch, request: MatchDiagnosis.ReceivedRequest(method: request.method, url: request.url, headers: [:]),
                       cassettes: cassetteNames, rules: [], nearest: [], hint: Self.hint(for: .noMatch))
    }

    /// What to do next, by reason.
    private static func hint(for reason: MatchDiagnosis.Reason) -> String {
        switch reason {
        case .exhausted:
            return "Record the extra call (mode new-episodes), or choose --on-exhausted repeat-last or cycle."
        case .expired:
            return "The recordings are older than the expiry age: re-record them (TAPEDECK_MODE=new-episodes with "
                + "--on-expired rerecord, or `tapedeck record --on-expired rerecord`), or raise --expire-after."
        case .noMatch:
            return "Record it with mode new-episodes (TAPEDECK_MODE=new-episodes, or `tapedeck record`), or relax matching with the ignore options."
        }
    }

    /// What to do about a request nothing matched, by what the player serves: recording only
    /// helps where there are recordings; with only stubs, the nearest stub says what to fix.
    private static func missHint(hasRecordings: Bool, nearestStubs: [MatchDiagnosis.StubNearMiss]) -> String {
        switch (hasRecordings, nearestStubs.first) {
        case (true, nil):
            return hint(for: .noMatch)
        case (true, .some):
            return "Record it with mode new-episodes (TAPEDECK_MODE=new-episodes, or `tapedeck record`), add a stub for it, "
                + "or relax matching with the ignore options."
        case (false, let nearest?):
            return "No stub matches this request: the nearest, \(Stub.naming(id: nearest.id, name: nearest.name)) failed on "
                + "\(nearest.failedField); add a stub for it or fix the request."
        case (false, nil):
            return "The cassettes hold no interactions and there are no stubs: record some (mode new-episodes, or `tapedeck record`) "
                + "or add stubs."
        }
    }
}

/// The outcome of serving one request.
package enum PlaybackResult: Sendable {
    /// An interaction was served.
    case played(Playback)
    /// Nothing was served; the diagnosis says why.
    case unmatched(MatchDiagnosis)
}

/// One served interaction.
///
/// A class, and immutable: a playback travels from the player through the journal, the inspector
/// and the answer, and passing it on is one reference where a copy of a struct retained every
/// field of the interaction it holds (its share of the replay server's time showed in profiles).
package final class Playback: Sendable {
    /// The interaction.
    package let interaction: Interaction
    /// The cassette it came from.
    package let cassette: String
    /// Its position in that cassette.
    package let index: Int
    /// Its position among all the interactions of the player that played it (``Player/interactions``).
    package let position: Int
    /// How many times it had been played before, in this session.
    package let playCount: Int
    /// When to send the head and the end.
    package let delay: ResponseDelay
    /// Whether the interaction is older than the expiry age (served under `--on-expired warn`).
    package let isExpired: Bool
    /// The stub that answered, when a stub did (then `index` is -1 and `cassette` is `stubs`).
    package let stub: StubServed?
    /// The broken connection the stub asks for instead of an answer.
    package let fault: StubFault?
    /// The WebSocket conversation to play after the upgrade, paced by the latency option; nil
    /// when the interaction holds none.
    package let conversation: WebSocketConversation?
    /// How the request or this answer breaks the API document (`--openapi`), one line each.
    package let violations: [String]

    package init(interaction: Interaction, cassette: String, index: Int, position: Int, playCount: Int, delay: ResponseDelay,
                 isExpired: Bool = false, stub: StubServed? = nil, fault: StubFault? = nil,
                 conversation: WebSocketConversation? = nil, violations: [String] = []) {
        self.interaction = interaction
        self.cassette = cassette
        self.index = index
        self.position = position
        self.playCount = playCount
        self.delay = delay
        self.isExpired = isExpired
        self.stub = stub
        self.fault = fault
        self.conversation = conversation
        self.violations = violations
    }

    /// This playback with the API document's `violations` noted.
    func noting(_ violations: [String]) -> Playback {
        Playback(interaction: interaction, cassette: cassette, index: index, position: position, playCount: playCount, delay: delay,
                 isExpired: isExpired, stub: stub, fault: fault, conversation: conversation, violations: violations)
    }

    /// Where the answer came from, for log lines: `interaction 3 of users.json`, or `stub "flaky" (stub-4)`.
    package var source: String {
        stub.map { Stub.naming(id: $0.id, name: $0.name) } ?? "interaction \(index) of \(cassette)"
    }

    /// A stub that answered a request.
    package struct StubServed: Sendable, Hashable {
        /// Its id.
        package let id: String
        /// Its name, if it has one.
        package let name: String?
    }
}

extension Player {
    /// The interactions of one cassette, by name, in recorded order (empty for a name not loaded).
    package func interactions(inCassette name: String) -> ArraySlice<Interaction> {
        guard let number = cassetteNames.firstIndex(of: name) else { return [] }
        let start = firstIndexOfCassette[number]
        let end = number + 1 < firstIndexOfCassette.count ? firstIndexOfCassette[number + 1] : interactions.count
        return interactions[start..<end]
    }

    /// The interaction at a position in a cassette, as a diagnosis names it.
    package func interaction(cassette name: String, index: Int) -> Interaction? {
        let slice = interactions(inCassette: name)
        guard index >= 0, index < slice.count else { return nil }
        return slice[slice.startIndex + index]
    }
}
