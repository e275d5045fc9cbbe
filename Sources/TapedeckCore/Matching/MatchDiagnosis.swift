import Foundation

/// Why a request was not served, with the nearest recorded requests: the body of the
/// replay server's 599 answer and the text of the connector's error.
public struct MatchDiagnosis: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Why nothing was served.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// No recorded interaction matches.
        case noMatch = "no-match"
        /// Interactions match but all were played, and the exhaustion policy is `error`.
        case exhausted
        /// Interactions match but all are older than the expiry age, and the policy is `error` or `rerecord`.
        case expired
    }

    /// The request as received.
    public struct ReceivedRequest: Sendable, Hashable, Codable {
        /// The method.
        public var method: String
        /// The URL, absolute or origin-form.
        public var url: String
        /// The headers.
        public var headers: [String: [String]]
        /// The body as text, or a note of its size when it is not UTF-8.
        public var body: String?
    }

    /// A recorded interaction close to the request, and the rules it failed.
    public struct NearMiss: Sendable, Hashable, Codable {
        /// The interaction's position in its cassette.
        public var index: Int
        /// The cassette it is in.
        public var cassette: String
        /// The recorded method.
        public var method: String
        /// The recorded URL.
        public var url: String
        /// The rules it failed, such as `body`.
        public var failedRules: [String]
        /// One readable difference per failed rule.
        public var differences: [String]
    }

    /// A stub close to the request, and the pattern field it failed.
    public struct StubNearMiss: Sendable, Hashable, Codable {
        /// The stub's id.
        public var id: String
        /// Its name, if any.
        public var name: String?
        /// The first pattern field it failed, such as `path` or `json`.
        public var failedField: String
        /// What differed.
        public var difference: String
    }

    /// One entry of a GraphQL answer's `errors`.
    public struct GraphQLError: Sendable, Hashable, Codable {
        /// What went wrong, in one line.
        public var message: String
    }

    /// Why nothing was served.
    public var reason: Reason
    /// The request as received.
    public var request: ReceivedRequest
    /// The cassettes searched.
    public var cassettes: [String]
    /// The active rules.
    public var rules: [String]
    /// Up to three nearest recorded requests; for `exhausted`, the ones already played.
    public var nearest: [NearMiss]
    /// Up to three nearest stubs, when there are stubs.
    public var nearestStubs: [StubNearMiss]?
    /// How the request breaks the API document given with `--openapi`, one line each; nil without one.
    public var violations: [String]?
    /// For a GraphQL request, the miss in one line (the operation and its first differing
    /// variable, or why no recording is close) as a GraphQL answer's `errors`, which GraphQL
    /// clients show when they ignore the status; nil for other requests.
    public var errors: [GraphQLError]?
    /// What to do next.
    public var hint: String

    public var description: String {
        var lines: [String] = []
        switch reason {
        case .noMatch: lines.append("Tapedeck: no recorded interaction matches \(request.method) \(request.url)")
        case .exhausted: lines.append("Tapedeck: every interaction matching \(request.method) \(request.url) was already played")
        case .expired: lines.append("Tapedeck: every interaction matching \(request.method) \(request.url) has expired")
        }
        for error in errors ?? [] { lines.append("  GraphQL: \(error.message)") }
        lines.append("  cassettes searched: \(cassettes.joined(separator: ", "))")
        lines.append("  rules: \(rules.joined(separator: ", "))")
        if nearest.isEmpty {
            lines.append("  the cassettes hold no interactions")
        } else {
            switch reason {
            case .exhausted: lines.append("  already played:")
            case .expired: lines.append("  expired:")
            case .noMatch: lines.append("  nearest recorded requests:")
            }
            for miss in nearest {
                let failed = miss.failedRules.isEmpty ? "" : ", failed: \(miss.failedRules.joined(separator: ", "))"
                lines.append("    #\(miss.index) in \(miss.cassette): \(miss.method) \(miss.url)\(failed)")
                for (rule, difference) in zip(miss.failedRules, miss.differences) {
                    lines.append("      \(rule): \(difference)")
                }
            }
        }
        if let nearestStubs, !nearestStubs.isEmpty {
            lines.append("  nearest stubs:")
            for stub in nearestStubs {
                lines.append("    \(stub.name.map { "\"\($0)\" (\(stub.id))" } ?? stub.id), failed: \(stub.failedField)")
                lines.append("      \(stub.failedField): \(stub.difference)")
            }
        }
        lines.append("  \(hint)")
        return lines.joined(separator: "\n")
    }
}

extension MatchDiagnosis.ReceivedRequest {
    /// Summarizes a request for a diagnosis.
    public init(_ request: CassetteRequest) {
        method = request.method
        url = request.url
        headers = request.headers.grouped
        if request.body.isEmpty {
            body = nil
        } else if request.body.count > Body.logLimit {
            let shown = request.body.logged
            body = (shown.text ?? "(not UTF-8)") + "… (\(request.body.count) bytes in all, the first \(Body.logLimit) shown)"
        } else {
            body = request.body.text ?? "(\(request.body.count) bytes, not UTF-8)"
        }
    }
}
