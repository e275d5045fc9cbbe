#if GraphQL
import Foundation

/// The GraphQL part of a stub's request pattern (`"graphql": {...}` in a stub file): the request
/// must be a GraphQL request (``GraphQLRequest``), and each field given must hold.
///
/// - `operationName`: the name of the operation the request runs, exactly (the chosen operation's
///   name, or the request's `operationName` when it sends only a persisted query's hash).
/// - `variables`: contained in the request's variables as the `json` pattern is in a body: objects
///   by subset, arrays and scalars equal, `"*"` any value.
/// - `query`: the same operation in canonical form (``GraphQLOperation/key``), however either is
///   written; with `operationName`, the operation of that name in a document of several.
///
/// ```swift
/// var pattern = RequestPattern(method: "POST", path: "/graphql")
/// pattern.graphQL = try GraphQLPattern(operationName: "GetUser", variables: .object(["id": .string("1")]))
/// ```
public struct GraphQLPattern: Sendable, Hashable {
    /// The operation's name, exactly.
    public let operationName: String?
    /// A JSON value the request's variables must contain.
    public let variables: JSONValue?
    /// The query document as written in the pattern.
    public let query: String?
    /// The operation ``query`` runs, parsed once.
    private let operation: GraphQLOperation?

    /// Creates a pattern; with no fields it matches every GraphQL request.
    ///
    /// - Throws: ``GraphQLRequestError`` when `query` has no operation to compare (it does not
    ///   parse, or does not say which of several to take).
    public init(operationName: String? = nil, variables: JSONValue? = nil, query: String? = nil) throws(GraphQLRequestError) {
        self.operationName = operationName
        self.variables = variables
        self.query = query
        operation = try query.map { document throws(GraphQLRequestError) in
            try GraphQLOperation(document: document, operationName: operationName)
        }
    }

    /// The first field the request fails, or nil when it matches.
    func failure(for request: CassetteRequest) -> PatternFailure? {
        guard let graphQL = GraphQLRequest(request) else {
            return PatternFailure(field: "graphql", difference: "the request is not a GraphQL request")
        }
        let received = operationName != nil || operation != nil
            ? Result { () throws(GraphQLRequestError) in try graphQL.operation() } : .success(nil)
        if let operationName {
            let name = (try? received.get())??.name ?? graphQL.operationName
            guard name == operationName else {
                return PatternFailure(field: "graphql.operationName", difference: "expected \(operationName), received \(name ?? "none")")
            }
        }
        if let operation, let failure = failure(expected: operation, received: received, request: graphQL) {
            return PatternFailure(field: "graphql.query", difference: failure)
        }
        if let variables, let place = RequestPattern.firstMismatch(expected: variables, actual: graphQL.variables ?? .object([:]),
                                                                   at: "$.variables") {
            return PatternFailure(field: "graphql.variables", difference: "the variables differ at \(place)")
        }
        return nil
    }

    /// Why the request does not run the expected operation; nil when it does. A request with only
    /// a persisted query's hash runs it when the hash is that of the pattern's query text.
    private func failure(expected: GraphQLOperation, received: Result<GraphQLOperation?, GraphQLRequestError>,
                         request: GraphQLRequest) -> String? {
        switch received {
        case .failure(let error):
            return "\(error)"
        case .success(nil):
            guard request.persistedQueryHash != query.map(GraphQLRequest.persistedQueryHash(of:)) else { return nil }
            return "the request sends only the hash of a persisted query, not that of the pattern's query"
        case .success(let operation?):
            guard operation.key != expected.key else { return nil }
            return "the request runs another operation: \(operation.canonicalText)"
        }
    }
}
#endif
