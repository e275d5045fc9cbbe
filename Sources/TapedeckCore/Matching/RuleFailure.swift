import Foundation

/// A matching rule that a recorded interaction failed, with a short readable difference.
struct RuleFailure: Sendable, Hashable {
    /// The rules, weighted by how far apart a failure puts two requests.
    enum Rule: Sendable, Hashable {
        case method, host, path, query, body, headers
        /// A ``CustomMatchRule``, by name.
        case custom(String)
        #if GraphQL
        /// A GraphQL request's operation, in place of the body.
        case operation
        /// A GraphQL request's variables, in place of the body.
        case variables
        #endif

        /// The name diagnoses show.
        var name: String {
            switch self {
            case .method: return "method"
            case .host: return "host"
            case .path: return "path"
            case .query: return "query"
            case .body: return "body"
            case .headers: return "headers"
            case .custom(let name): return name
            #if GraphQL
            case .operation: return "operation"
            case .variables: return "variables"
            #endif
            }
        }

        var weight: Int {
            switch self {
            case .method: return 16
            case .path: return 8
            case .host: return 4
            case .query, .body: return 2
            case .headers, .custom: return 1
            #if GraphQL
            // Another operation is further than the same one with other variables.
            case .operation: return 3
            case .variables: return 2
            #endif
            }
        }
    }

    let rule: Rule
    let difference: String

    /// Every rule on which the recorded key differs from the received one.
    static func compare(recorded: RequestKey, origin: RequestTarget?, received: RequestKey,
                        target: RequestTarget) -> [RuleFailure] {
        var failures: [RuleFailure] = []
        if recorded.method != received.method && !(received.method == "HEAD" && recorded.method == "GET") {
            failures.append(RuleFailure(rule: .method, difference: "recorded \(recorded.method), received \(received.method)"))
        }
        if target.namesHost, let origin, origin.origin != target.origin {
            failures.append(RuleFailure(rule: .host, difference: "recorded \(origin.origin ?? "-"), received \(target.origin ?? "-")"))
        }
        if recorded.path != received.path {
            failures.append(RuleFailure(rule: .path, difference: "recorded \(recorded.path), received \(received.path)"))
        }
        if recorded.query != received.query {
            failures.append(RuleFailure(rule: .query, difference: pairDifference(recorded.query, received.query)))
        }
        if recorded.body != received.body {
            failures.append(bodyFailure(recorded.body, received.body))
        }
        if recorded.headers != received.headers {
            let differing = zip(recorded.headers, received.headers).filter { $0.values != $1.values }
            let text = differing.map { "\($0.name): recorded \($0.values), received \($1.values)" }.joined(separator: "; ")
            failures.append(RuleFailure(rule: .headers, difference: text))
        }
        return failures
    }

    /// How two bodies differ; for two GraphQL requests, by operation or variables.
    private static func bodyFailure(_ recorded: ComparableBody, _ received: ComparableBody) -> RuleFailure {
        #if GraphQL
        if case .graphQL(let old) = recorded, case .graphQL(let new) = received {
            return GraphQLMatchKey.failure(recorded: old, received: new)
        }
        #endif
        return RuleFailure(rule: .body, difference: bodyDifference(recorded, received))
    }

    /// What one multiset of pairs has that the other lacks.
    static func pairDifference(_ recorded: [FormURLEncoding.Pair], _ received: [FormURLEncoding.Pair]) -> String {
        var remaining = received
        var missing: [FormURLEncoding.Pair] = []
        for pair in recorded {
            if let found = remaining.firstIndex(of: pair) { remaining.remove(at: found) } else { missing.append(pair) }
        }
        func show(_ pairs: [FormURLEncoding.Pair]) -> String { pairs.map { "\($0.name)=\($0.value)" }.joined(separator: "&") }
        var parts: [String] = []
        if !missing.isEmpty { parts.append("recorded has \(show(missing)) that the request lacks") }
        if !remaining.isEmpty { parts.append("the request has \(show(remaining)) that was not recorded") }
        return parts.joined(separator: "; ")
    }

    /// The first readable difference between two bodies.
    static func bodyDifference(_ recorded: ComparableBody, _ received: ComparableBody) -> String {
        switch (recorded, received) {
        case let (.json(a), .json(b)):
            guard let (path, left, right) = firstJSONDifference(a, b, path: "$") else { return "JSON differs" }
            return "at \(path) recorded \(left?.summary ?? "(absent)"), received \(right?.summary ?? "(absent)")"
        case let (.form(a), .form(b)):
            return "form " + pairDifference(a, b)
        case let (.multipart(a), .multipart(b)):
            if a.count != b.count { return "recorded \(a.count) parts, received \(b.count)" }
            for (number, (left, right)) in zip(a, b).enumerated() where left != right {
                let label = "part \(number + 1) (\(left.name ?? "unnamed")\(left.filename.map { ", \($0)" } ?? ""))"
                if left.name != right.name { return "\(label): name \(right.name ?? "none") received" }
                if left.filename != right.filename { return "\(label): filename \(right.filename ?? "none") received" }
                if left.contentType != right.contentType { return "\(label): content type \(right.contentType ?? "none") received" }
                return "\(label): " + byteDifference(left.content, right.content)
            }
            return "parts differ"
        case let (.bytes(a), .bytes(b)):
            return byteDifference(a, b)
        case let (.digest(a, aCount), .digest(b, bCount)):
            return "recorded \(aCount) bytes with SHA-256 \(a.prefix(12))…, received \(bCount) bytes with SHA-256 \(b.prefix(12))…"
        case let (.digest(_, count), .bytes(data)):
            return "recorded \(count) bytes, received \(data.count)"
        case let (.bytes(data), .digest(_, count)):
            return "recorded \(data.count) bytes, received \(count)"
        default:
            return "recorded a \(recorded.kindName) body, received a \(received.kindName) body"
        }
    }

    private static func byteDifference(_ a: Data, _ b: Data) -> String {
        let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        return "recorded \(a.count) bytes, received \(b.count); first difference at byte \(first)"
    }

    /// The first place two JSON values differ, with both values (nil where absent).
    static func firstJSONDifference(_ a: JSONValue, _ b: JSONValue, path: String) -> (String, JSONValue?, JSONValue?)? {
        if a == b { return nil }
        switch (a, b) {
        case let (.object(left), .object(right)):
            for key in Set(left.keys).union(right.keys).sorted() {
                let place = JSONPath(segments: [.key(key)]).description.dropFirst()
                switch (left[key], right[key]) {
                case let (l?, r?):
                    if let found = firstJSONDifference(l, r, path: path + place) { return found }
                case let (l, r):
                    return (path + place, l, r)
                }
            }
            return nil
        case let (.array(left), .array(right)):
            for position in 0..<max(left.count, right.count) {
                let l = position < left.count ? left[position] : nil
                let r = position < right.count ? right[position] : nil
                guard let l, let r else { return ("\(path)[\(position)]", l, r) }
                if let found = firstJSONDifference(l, r, path: "\(path)[\(position)]") { return found }
            }
            return nil
        default:
            return (path, a, b)
        }
    }
}
