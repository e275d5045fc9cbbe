import Foundation

/// The stubs a player consults when no recording matches, their scenario states, and the log of
/// received requests that verification reads. Stubs from cassettes and stub files come first, in
/// file order; stubs added at run time follow, optionally scoped to one playback session.
///
/// Lookup is by priority then order, among the stubs indexed under the request's method and
/// first path segment (plus those that accept any method or start with a pattern), so a thousand
/// stubs cost little more than ten.
public final class StubSet: Sendable {
    /// A stub chosen for a request, with its expanded answer.
    public struct Served: Sendable {
        /// The stub.
        public let stub: Stub
        /// The answer, templates expanded.
        public let response: StubResponse
        /// How many times this stub had answered before, in this session.
        public let playCount: Int
    }

    private struct Entry: Sendable {
        var stub: Stub
        /// The session a run-time stub is scoped to; nil for every session.
        var session: String?
        /// Whether it came from a cassette or stub file (kept by ``removeAll(session:)``).
        var fromFile: Bool
    }

    private struct State: Sendable {
        var entries: [Entry] = []
        var nextID = 1
        /// Positions in `entries` by method (or `*`) and first literal path segment (or "").
        var index: [String: [String: [Int]]] = [:]
        /// How many stubs match their path with a regular expression.
        var regexCount = 0
        /// Scenario states and play counts per session, for at most ``Player/sessionCapacity`` sessions.
        var scenarios = LRUCache<String, [String: String]>(capacity: Player.sessionCapacity)
        var playCounts = LRUCache<String, [String: Int]>(capacity: Player.sessionCapacity)
    }

    private let state = Locked(State())
    private let received: BoundedLog<ReceivedRequest>
    private let seed: UInt64
    private let now: @Sendable () -> Date
    /// The most bytes one templated answer may expand to.
    private let maxTemplateOutput: Int

    /// The default of `maxTemplateOutput`: 1 MiB.
    public static let defaultMaxTemplateOutput = 1 << 20

    /// A request as verification sees it.
    public struct ReceivedRequest: Sendable {
        /// The request.
        public let request: CassetteRequest
        /// Its `Tapedeck-Session`, `""` for the default session.
        public let session: String
    }

    /// Creates a set from stubs loaded from files.
    ///
    /// - Parameters:
    ///   - seed: what `{{uuid}}` is derived from, with the stub and its play count.
    ///   - now: what `{{now}}` reads.
    ///   - logCapacity: how many received requests verification can see.
    ///   - maxTemplateOutput: the most bytes a templated answer may expand to; past it the answer is a 500.
    public init(_ stubs: [Stub] = [], seed: UInt64 = 0, now: @escaping @Sendable () -> Date = Date.init, logCapacity: Int = 1000,
                maxTemplateOutput: Int = StubSet.defaultMaxTemplateOutput) {
        self.seed = seed
        self.now = now
        self.maxTemplateOutput = maxTemplateOutput
        received = BoundedLog(capacity: logCapacity)
        state.withLock { state in
            for stub in stubs { Self.insert(stub, session: nil, fromFile: true, into: &state) }
        }
    }

    /// Adds stubs, for every session or only for `session`; returns their ids.
    @discardableResult
    public func add(_ stubs: [Stub], session: String? = nil) -> [String] {
        state.withLock { state in
            stubs.map { Self.insert($0, session: session, fromFile: false, into: &state) }
        }
    }

    /// The stubs a session sees (every stub when `session` is nil), in lookup order.
    public func list(session: String? = nil) -> [Stub] {
        state.withLock { state in
            Self.ordered(state.entries.indices, in: state)
                .filter { session == nil || state.entries[$0].session == nil || state.entries[$0].session == session }
                .map { state.entries[$0].stub }
        }
    }

    /// Whether any stub matches with a regular expression, whose evaluation may take up to its
    /// budget (``StubRegex``): the servers then decide a request that reaches the stubs off the
    /// event loop (``Player/play(_:session:explainingMisses:quickly:)``).
    package var mayMatchSlowly: Bool {
        state.withLock { $0.regexCount > 0 }
    }

    /// Removes the stub with this id; false when there is none.
    @discardableResult
    public func remove(id: String) -> Bool {
        state.withLock { state in
            let before = state.entries.count
            state.entries.removeAll { $0.stub.id == id }
            Self.reindex(&state)
            return state.entries.count != before
        }
    }

    /// Removes the stubs added at run time (those of one session, when given); stubs from files stay.
    public func removeAll(session: String? = nil) {
        state.withLock { state in
            state.entries.removeAll { !$0.fromFile && (session == nil || $0.session == session) }
            Self.reindex(&state)
        }
    }

    /// Puts every scenario back in `Started`, forgets play counts and empties the request log.
    public func reset() {
        state.withLock { state in
            state.scenarios.removeAll()
            state.playCounts.removeAll()
        }
        received.reset()
    }

    /// Notes a received request, for verification.
    /// Bodies are kept to their first ``Body/logLimit`` bytes, which is what verification then sees.
    public func log(_ request: CassetteRequest, session: String) {
        received.append(ReceivedRequest(request: request.logged, session: session))
    }

    /// The logged requests that fit `pattern` (of one session, when given), oldest first.
    public func verify(_ pattern: RequestPattern, session: String? = nil) -> [CassetteRequest] {
        received.snapshot().entries
            .filter { session == nil || $0.session == session }
            .map(\.request)
            .filter { if case .success = pattern.evaluate($0) { return true } else { return false } }
    }

    /// The stub that answers a request in a session, with its answer; nil when none fits.
    /// Serving it counts a play and moves its scenario.
    public func answer(_ request: CassetteRequest, session: String) -> Served? {
        let chosen: (stub: Stub, captures: [String: String], playCount: Int)? = state.withLock { state in
            for position in Self.candidates(for: request, in: state) {
                let entry = state.entries[position]
                guard entry.session == nil || entry.session == session else { continue }
                if let scenario = entry.stub.scenario,
                   (state.scenarios.peek(session)?[scenario.name] ?? StubScenario.started) != scenario.state { continue }
                guard case .success(let captures) = entry.stub.request.evaluate(request) else { continue }
                if let scenario = entry.stub.scenario, let next = scenario.next {
                    state.scenarios[session, default: [:]][scenario.name] = next
                }
                let playCount = state.playCounts.peek(session)?[entry.stub.id] ?? 0
                state.playCounts[session, default: [:]][entry.stub.id] = playCount + 1
                return (entry.stub, captures, playCount)
            }
            return nil
        }
        guard let chosen else { return nil }
        let stubRequest = StubRequest(request: request, captures: chosen.captures)
        var response: StubResponse
        switch chosen.stub.answer {
        case .response(let value): response = value
        case .compute(let respond):
            response = respond(stubRequest)
            // A decoded stub's status was checked when read; Swift code's is checked here, as it answers.
            if let refusal = Self.statusRefusal(response) {
                return Served(stub: chosen.stub, response: Self.notServed(chosen.stub, because: refusal, tag: "stub-status-refused"),
                              playCount: chosen.playCount)
            }
        }
        if response.templated {
            let (stub, playCount, now) = (chosen.stub.id, chosen.playCount, now)
            let context = StubTemplate.Context(request: stubRequest, uuid: { self.uuid(stub: stub, playCount: playCount) },
                                               now: { Timestamp.iso8601(now()) })
            do {
                response = try StubTemplate.expand(response, in: context, limit: maxTemplateOutput)
            } catch {
                response = Self.notServed(chosen.stub, because: "\(error)", tag: "template-failed")
            }
        }
        return Served(stub: chosen.stub, response: response, playCount: chosen.playCount)
    }

    /// Why a computed response cannot answer a request (``AnswerStatusRule``, and a status of three
    /// digits, as a stub file's must be), or nil when it can.
    private static func statusRefusal(_ response: StubResponse) -> String? {
        guard AnswerStatusRule.stubbed.contains(response.status) else { return "status \(response.status) is not a status code (100 to 999)" }
        return AnswerStatusRule.refusal(status: response.status, hasConversation: response.websocket != nil)
    }

    /// The answer of a stub that could not be served (its templates did not expand, or its computed
    /// status cannot answer): 500, naming the stub and why, with `Tapedeck-Error: tag`.
    private static func notServed(_ stub: Stub, because reason: String, tag: String) -> StubResponse {
        StubResponse(status: 500,
                     headers: ["Content-Type": "text/plain; charset=utf-8", "Tapedeck-Error": tag],
                     body: Body(text: "\(Stub.naming(id: stub.id, name: stub.name)) was not served: \(reason)\n"))
    }

    /// The nearest stubs for a request that none answers, each with the pattern field it failed:
    /// a field of the pattern; else `session` (scoped to another session) or `scenario` (in another state).
    public func nearMisses(for request: CassetteRequest, session: String, limit: Int = 3) -> [(stub: Stub, failure: PatternFailure)] {
        let entries = state.withLock { state in Self.ordered(state.entries.indices, in: state).map { (state.entries[$0], state.scenarios.peek(session)) } }
        let weights = ["method": 16, "path": 8, "pathRegex": 8, "host": 4]
        return entries.compactMap { entry, scenarios -> (Stub, PatternFailure)? in
            let stub = entry.stub
            if case .failure(let failure) = stub.request.evaluate(request) { return (stub, failure) }
            if let owner = entry.session, owner != session {
                let asked = session.isEmpty ? "no session" : "session \"\(session)\""
                return (stub, PatternFailure(field: "session", difference: "the stub is for session \"\(owner)\"; this request is in \(asked)"))
            }
            guard let scenario = stub.scenario else { return nil }
            let current = scenarios?[scenario.name] ?? StubScenario.started
            return (stub, PatternFailure(field: "scenario",
                                         difference: "scenario \"\(scenario.name)\" is in state \"\(current)\"; the stub needs \"\(scenario.state)\""))
        }
        .enumerated()
        .sorted { (weights[$0.element.1.field] ?? 1, $0.offset) < (weights[$1.element.1.field] ?? 1, $1.offset) }
        .prefix(limit)
        .map { ($0.element.0, $0.element.1) }
    }

    // MARK: - Lookup

    @discardableResult
    private static func insert(_ stub: Stub, session: String?, fromFile: Bool, into state: inout State) -> String {
        var stub = stub
        if stub.id.isEmpty {
            stub.id = "stub-\(state.nextID)"
            state.nextID += 1
        }
        state.entries.append(Entry(stub: stub, session: session, fromFile: fromFile))
        index(state.entries.count - 1, in: &state)
        return stub.id
    }

    /// Adds the entry at `position` to the index: one step per stub added, so adding stubs one at
    /// a time costs time linear in their number.
    private static func index(_ position: Int, in state: inout State) {
        let request = state.entries[position].stub.request
        if request.pathRegex != nil { state.regexCount += 1 }
        let method = request.method.map { $0 == "*" ? "*" : $0.uppercased() } ?? "*"
        state.index[method, default: [:]][request.firstLiteralSegment ?? "", default: []].append(position)
    }

    /// Indexes every entry anew, after removals moved positions.
    private static func reindex(_ state: inout State) {
        state.index = [:]
        state.regexCount = 0
        for position in state.entries.indices { index(position, in: &state) }
    }

    /// The positions worth evaluating for a request, in lookup order.
    private static func candidates(for request: CassetteRequest, in state: State) -> [Int] {
        guard !state.index.isEmpty else { return [] }
        let method = request.method.uppercased()
        let path = FormURLEncoding.decode(Substring(request.target.path))
        let segment = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().first.map(String.init) ?? ""
        var positions: [Int] = []
        for methodKey in [method, "*"] {
            guard let bySegment = state.index[methodKey] else { continue }
            positions += bySegment[segment] ?? []
            if !segment.isEmpty { positions += bySegment[""] ?? [] }
        }
        return ordered(positions, in: state)
    }

    private static func ordered(_ positions: some Sequence<Int>, in state: State) -> [Int] {
        positions.sorted { (state.entries[$0].stub.priority, $0) < (state.entries[$1].stub.priority, $1) }
    }

    /// A UUID from (seed, stub, play count): never random, so runs repeat.
    private func uuid(stub: String, playCount: Int) -> String {
        var bytes = SHA256.hash(Data("\(seed):\(stub):\(playCount)".utf8)).bytes.prefix(16).map { $0 }
        bytes[6] = bytes[6] & 0x0f | 0x40
        bytes[8] = bytes[8] & 0x3f | 0x80
        let hex = bytes.hexadecimal
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
