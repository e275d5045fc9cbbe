#if GraphQL
import Foundation

/// Reduces GraphQL requests to ``GraphQLMatchKey``s for the matcher: each recorded query is parsed
/// once, when the cassette is indexed; an incoming query is looked up there, then in a small cache
/// of recent texts, and parsed only when new, so replaying one operation with many variables parses
/// its query once. A persisted query's hash resolves to the recorded operation whose text hashes
/// to it, or whose recorded request carried it beside the text.
final class GraphQLKeyReader: Sendable {
    /// A query text and the operation it chooses: what parsing depends on.
    private struct Source: Sendable, Hashable {
        var query: String
        var operationName: String?
    }

    private typealias Parsed = Result<GraphQLOperation, GraphQLRequestError>

    /// The recorded queries, parsed.
    private let recorded: [Source: Parsed]
    /// Persisted-query hashes of the recorded queries.
    private let persisted: [String: GraphQLOperation]
    /// Queries received lately that no recording holds.
    private let recent = Locked(LRUCache<Source, Parsed>(capacity: 256))

    /// Parses the GraphQL requests among `interactions`.
    init(recorded interactions: [Interaction]) {
        var recorded: [Source: Parsed] = [:]
        var persisted: [String: GraphQLOperation] = [:]
        for interaction in interactions {
            guard let request = Self.graphQLRequest(interaction.request), let query = request.query else { continue }
            let source = Source(query: query, operationName: request.operationName)
            let parsed = recorded[source] ?? Self.parse(source)
            recorded[source] = parsed
            guard case .success(let operation) = parsed else { continue }
            persisted[GraphQLRequest.persistedQueryHash(of: query)] = operation
            if let hash = request.persistedQueryHash { persisted[hash] = operation }
        }
        self.recorded = recorded
        self.persisted = persisted
    }

    /// The request as GraphQL, or nil when it is not one. A POST body that never spells
    /// `"query"` or `persistedQuery`, and a URL query without `query=` or `extensions=`, are
    /// passed over before any JSON is parsed: most requests on a mixed cassette are not GraphQL.
    static func graphQLRequest(_ request: CassetteRequest) -> GraphQLRequest? {
        switch request.method.uppercased() {
        case "POST":
            let data = request.body.count <= Body.wholeReadLimit ? request.body.data : Data()
            guard data.range(of: Data(#""query""#.utf8)) != nil || data.range(of: Data("persistedQuery".utf8)) != nil else { return nil }
        case "GET":
            guard let query = request.target.query, query.contains("query=") || query.contains("extensions=") else { return nil }
        default:
            return nil
        }
        return GraphQLRequest(request)
    }

    /// The request's key, its variables without the `ignored` places (paths from the body's root,
    /// such as `$.variables.requestId`); the parser's error when its query has no operation.
    func key(for request: GraphQLRequest, ignoring ignored: [JSONPath]) -> Result<GraphQLMatchKey, GraphQLRequestError> {
        let variables = Self.variables(of: request, ignoring: ignored)
        guard let query = request.query else {
            let hash = request.persistedQueryHash ?? ""
            if let operation = persisted[hash] { return .success(GraphQLMatchKey(operation: operation, variables: variables)) }
            return .success(GraphQLMatchKey(persistedQueryHash: hash, operationName: request.operationName, variables: variables))
        }
        return parsed(Source(query: query, operationName: request.operationName))
            .map { GraphQLMatchKey(operation: $0, variables: variables) }
    }

    private func parsed(_ source: Source) -> Parsed {
        if let known = recorded[source] { return known }
        if let seen = recent.withLock({ $0.peek(source) }) { return seen }
        let parsed = Self.parse(source)
        recent.withLock { $0.set(parsed, for: source) }
        return parsed
    }

    private static func parse(_ source: Source) -> Parsed {
        Result { () throws(GraphQLRequestError) in try GraphQLOperation(document: source.query, operationName: source.operationName) }
    }

    /// The variables as the ignore rules leave them: the rules apply to `{"variables": ...}`, as
    /// they would to a POST body, so `$.variables.id` and `$..nonce` work for a GET too.
    private static func variables(of request: GraphQLRequest, ignoring ignored: [JSONPath]) -> JSONValue {
        var body = JSONValue.object(["variables": request.variables ?? .object([:])])
        for path in ignored { body = path.rewriting(body) { _ in nil } }
        guard case .object(let members) = body, let variables = members["variables"], variables != .null else { return .object([:]) }
        return variables
    }
}
#endif
