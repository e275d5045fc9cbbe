import Foundation

/// Finds the recorded interactions a request matches.
///
/// Every recorded request is reduced once to a ``RequestKey`` and indexed, so a lookup
/// costs one key computation and one hash probe whatever the cassette's size. The host
/// is checked on the few candidates only when the incoming request names one.
package struct Matcher: Sendable {
    let normalizer: RequestNormalizer
    let keys: [RequestKey]
    let origins: [RequestTarget?]
    private let index: [RequestKey: [Int]]
    /// Each recorded request's Range and conditional headers; nil when it sent none.
    private let conditions: [ConditionalHeaders?]
    /// Whether each recorded response is a 206 or a 304.
    private let partial: [Bool]

    /// Indexes recorded interactions under the options.
    package init(interactions: [Interaction], options: MatchOptions = .default) {
        normalizer = RequestNormalizer(options: options, recorded: interactions)
        let targets = interactions.map { $0.request.target }
        let keys = Self.keys(for: interactions, targets: targets, normalizer: normalizer)
        var index: [RequestKey: [Int]] = [:]
        index.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() { index[key, default: []].append(position) }
        let origins = targets.map { $0.namesHost ? $0 : nil }
        self.keys = keys
        self.origins = origins
        self.index = index
        conditions = interactions.map { ConditionalHeaders($0.request.headers) }
        partial = interactions.map { ConditionalHeaders.isPartialOrNotModified(status: $0.response.status) }
    }

    /// Reduces every recorded request to its key, on all cores for a large cassette.
    private static func keys(for interactions: [Interaction], targets: [RequestTarget],
                             normalizer: RequestNormalizer) -> [RequestKey] {
        let sliceSize = 8192
        guard interactions.count > sliceSize, ProcessInfo.processInfo.activeProcessorCount > 1 else {
            return zip(interactions, targets).map { normalizer.key(for: $0.request, target: $1) }
        }
        let sliceCount = (interactions.count + sliceSize - 1) / sliceSize
        let slices = Locked<[[RequestKey]]>(Array(repeating: [], count: sliceCount))
        DispatchQueue.concurrentPerform(iterations: sliceCount) { slice in
            let range = slice * sliceSize ..< min((slice + 1) * sliceSize, interactions.count)
            let keys = range.map { normalizer.key(for: interactions[$0].request, target: targets[$0]) }
            slices.withLock { $0[slice] = keys }
        }
        return slices.withLock { $0.flatMap { $0 } }
    }

    /// The options in force.
    package var options: MatchOptions { normalizer.options }

    /// The positions of the interactions the request matches, in recorded order.
    ///
    /// HEAD: the recorded HEADs of the same request, else its recorded GETs (the door then sends
    /// the head only: ``ResponseBodyRule/sendsBody(status:requestMethod:)``).
    /// Range and conditional requests (`Range`, `If-None-Match`, `If-Modified-Since`): among the
    /// matches, those recorded with the same values of these headers; else the full answers (not
    /// 206 or 304); else the rest. So a plain request never gets a recorded 206 or 304 while a full
    /// answer exists, and a conditional one prefers the recording it repeats.
    package func matches(_ request: CassetteRequest) -> [Int] {
        guard !index.isEmpty else { return [] }
        let target = request.target
        var key = normalizer.key(for: request, target: target)
        var candidates = self.candidates(for: key, target: target)
        if candidates.isEmpty, key.method == "HEAD" {
            key.method = "GET"
            candidates = self.candidates(for: key, target: target)
        }
        return preferred(candidates, conditions: ConditionalHeaders(request.headers))
    }

    /// The interactions whose key equals `key` and, when the request names a host, of that origin.
    private func candidates(for key: RequestKey, target: RequestTarget) -> [Int] {
        guard let candidates = index[key] else { return [] }
        guard target.namesHost else { return candidates }
        return candidates.filter { Self.sameOrigin(origins[$0], target) }
    }

    /// The candidates recorded with the same Range and conditional headers; else the full answers; else all.
    private func preferred(_ candidates: [Int], conditions wanted: ConditionalHeaders?) -> [Int] {
        if candidates.allSatisfy({ conditions[$0] == wanted }) { return candidates }
        let same = candidates.filter { conditions[$0] == wanted }
        if !same.isEmpty { return same }
        let full = candidates.filter { !partial[$0] }
        return full.isEmpty ? candidates : full
    }

    /// The nearest recorded interactions and why each failed: computed only on a miss.
    func nearMisses(for request: CassetteRequest, limit: Int = 3) -> [(index: Int, failures: [RuleFailure])] {
        let target = request.target
        let key = normalizer.key(for: request, target: target)
        var scored: [(index: Int, weight: Int, failures: [RuleFailure])] = []
        for position in keys.indices {
            let failures = RuleFailure.compare(recorded: keys[position], origin: origins[position],
                                               received: key, target: target)
            scored.append((position, failures.reduce(0) { $0 + $1.rule.weight }, failures))
        }
        scored.sort { ($0.weight, $0.index) < ($1.weight, $1.index) }
        return scored.prefix(limit).map { ($0.index, $0.failures) }
    }

    private static func sameOrigin(_ recorded: RequestTarget?, _ incoming: RequestTarget) -> Bool {
        guard let recorded else { return true }
        return recorded.scheme == incoming.scheme && recorded.host == incoming.host && recorded.port == incoming.port
    }
}
