import Foundation

/// Serves recorded interactions: matches a request, picks the first interaction not yet
/// played in its session, applies the exhaustion policy and computes the delay.
///
/// Matching and marking an interaction played is one step under a lock, so concurrent
/// requests never receive the same interaction when the policy forbids it.
public final class Player: Sendable {
    /// The interactions of all cassettes, in order.
    public let interactions: [Interaction]
    /// The options in force.
    public let options: PlaybackOptions
    private let matcher: Matcher
    private let cassetteNames: [String]
    private let cassetteOfIndex: [Int]
    private let firstIndexOfCassette: [Int]
    private let playCounts = Locked<[String: [Int: Int]]>([:])

    /// Creates a player over one or more named cassettes, searched in order.
    public init(cassettes: [(name: String, cassette: Cassette)], options: PlaybackOptions = PlaybackOptions()) {
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
        self.matcher = Matcher(interactions: interactions, options: options.match)
    }

    /// Creates a player over one cassette.
    public convenience init(cassette: Cassette, name: String, options: PlaybackOptions = PlaybackOptions()) {
        self.init(cassettes: [(name, cassette)], options: options)
    }

    /// The names of the cassettes, in search order.
    public var cassettes: [String] { cassetteNames }

    /// Serves a request for a session (`""` is the shared default session).
    public func play(_ request: CassetteRequest, session: String = "") -> PlaybackResult {
        let candidates = matcher.matches(request)
        guard !candidates.isEmpty else {
            return .unmatched(diagnosis(for: request, reason: .noMatch, nearest: matcher.nearMisses(for: request)))
        }
        let choice = playCounts.withLock { sessions in
            Self.choose(among: candidates, counts: &sessions[session, default: [:]], policy: options.exhaustion)
        }
        guard let choice else {
            return .unmatched(diagnosis(for: request, reason: .exhausted, nearest: candidates.suffix(3).map { ($0, []) }))
        }
        let interaction = interactions[choice.index]
        return .played(Playback(
            interaction: interaction,
            cassette: cassetteNames[cassetteOfIndex[choice.index]],
            index: choice.index - firstIndexOfCassette[cassetteOfIndex[choice.index]],
            playCount: choice.playCount,
            delay: options.latency.delay(for: interaction, index: choice.index, playCount: choice.playCount)))
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
                let least = candidates.map { counts[$0, default: 0] }.min() ?? 0
                chosen = candidates.first { counts[$0, default: 0] == least }!
            }
        }
        let playCount = counts[chosen, default: 0]
        counts[chosen] = playCount + 1
        return (chosen, playCount)
    }

    /// Puts every session back to the start.
    public func reset() {
        playCounts.withLock { $0 = [:] }
    }

    /// How often each interaction was played, over all sessions, by cassette and position.
    public func playedCounts() -> [(cassette: String, index: Int, count: Int)] {
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
            rules: options.match.ruleDescriptions + ["when exhausted: \(options.exhaustion.rawValue)"],
            nearest: nearest.map { entry in
                let cassette = cassetteOfIndex[entry.index]
                let recorded = interactions[entry.index].request
                return MatchDiagnosis.NearMiss(
                    index: entry.index - firstIndexOfCassette[cassette], cassette: cassetteNames[cassette],
                    method: recorded.method, url: recorded.url,
                    failedRules: entry.failures.map(\.rule.rawValue), differences: entry.failures.map(\.difference))
            },
            hint: reason == .exhausted
                ? "Record the extra call (mode new-episodes), or choose --on-exhausted repeat-last or cycle."
                : "Record it with mode new-episodes (TAPEDECK_MODE=new-episodes, or `tapedeck record`), or relax matching with the ignore options.")
    }
}

/// The outcome of serving one request.
public enum PlaybackResult: Sendable {
    /// An interaction was served.
    case played(Playback)
    /// Nothing was served; the diagnosis says why.
    case unmatched(MatchDiagnosis)
}

/// One served interaction.
public struct Playback: Sendable {
    /// The interaction.
    public let interaction: Interaction
    /// The cassette it came from.
    public let cassette: String
    /// Its position in that cassette.
    public let index: Int
    /// How many times it had been played before, in this session.
    public let playCount: Int
    /// When to send the head and the end.
    public let delay: ResponseDelay
}
