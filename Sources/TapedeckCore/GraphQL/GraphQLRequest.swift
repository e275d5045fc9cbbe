#if GraphQL
import Foundation

/// A GraphQL request as the matcher sees it: the query document, the operation it names, the
/// variables, and the hash of an Apollo persisted query.
///
/// A request is a GraphQL request when it is
/// - a POST whose body (Content-Type JSON, or none) is a JSON object with a string `query`, or with
///   `extensions.persistedQuery.sha256Hash` (Apollo's automatic persisted queries, which send the
///   hash alone until the server asks for the query), beside an optional string `operationName`
///   and any `variables`; or
/// - a GET whose URL has a `query` parameter, or an `extensions` parameter naming a persisted
///   query; `operationName` is a parameter too, and `variables` and `extensions` are JSON text.
///
/// The path is not looked at: any path serves GraphQL (a plain `GET /search?query=shoes` is taken
/// for one too, and its query then does not parse). Not recognized, so matched as before: a
/// batch (a JSON array of requests, which Apollo's batching link sends), a body of
/// `application/graphql`, a multipart upload, and an envelope whose members have the wrong types
/// (`"operationName": 3`, or GET `variables` or `extensions` that are not JSON).
public struct GraphQLRequest: Sendable, Hashable {
    /// The query document as sent; nil when the request carries only a persisted query's hash.
    public var query: String?
    /// The operation to run, when the request names one (an empty name counts as none).
    public var operationName: String?
    /// The variables as sent; nil when there are none (absent or `null`).
    public var variables: JSONValue?
    /// `extensions.persistedQuery.sha256Hash`: the SHA-256 (hexadecimal) of the query text, which an
    /// Apollo client sends instead of the query once the server has seen it.
    public var persistedQueryHash: String?

    /// Creates a request from its parts.
    public init(query: String?, operationName: String? = nil, variables: JSONValue? = nil, persistedQueryHash: String? = nil) {
        self.query = query
        self.operationName = operationName
        self.variables = variables
        self.persistedQueryHash = persistedQueryHash
    }

    /// Recognizes a GraphQL request from its method, its URL's query string (without `?`), its body
    /// and its Content-Type; nil when it is not one.
    public init?(method: String, urlQuery: String?, body: Data, contentType: String?) {
        switch method.uppercased() {
        case "POST":
            guard contentType == nil || BodyKind(contentType: contentType) == .json else { return nil }
            self.init(jsonBody: body)
        case "GET":
            guard let urlQuery else { return nil }
            self.init(urlParameters: FormURLEncoding.pairs(Substring(urlQuery)))
        default:
            return nil
        }
    }

    /// Recognizes a GraphQL request as the core holds it; nil when it is not one, or when its body
    /// is too large to read whole (``Body/isReadableWhole``).
    public init?(_ request: CassetteRequest) {
        let isPost = request.method.uppercased() == "POST"
        guard !isPost || request.body.isReadableWhole else { return nil }
        self.init(method: request.method, urlQuery: request.target.query, body: isPost ? request.body.data : Data(),
                  contentType: request.headers["Content-Type"])
    }

    /// The URL parameters a GET request carries GraphQL in.
    public static let urlParameterNames: Set<String> = ["query", "operationName", "variables", "extensions"]

    /// The SHA-256 of ``query`` exactly as sent, in hexadecimal: what an Apollo client names it by
    /// in a later request that carries only ``persistedQueryHash``.
    public var queryHash: String? {
        query.map(Self.persistedQueryHash(of:))
    }

    /// The persisted-query hash of a query text: its SHA-256 in lowercase hexadecimal.
    public static func persistedQueryHash(of query: String) -> String {
        SHA256.hash(Array(query.utf8)).hexadecimal
    }

    /// The operation the request runs, in canonical form; nil when it carries no query text (only
    /// a persisted query's hash).
    public func operation() throws(GraphQLRequestError) -> GraphQLOperation? {
        guard let query else { return nil }
        return try GraphQLOperation(document: query, operationName: operationName)
    }

    /// The members of a POST body: `{"query": ..., "operationName": ..., "variables": ..., "extensions": ...}`.
    private init?(jsonBody body: Data) {
        // An object, not a batch's array, before decoding any JSON.
        let blanks: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        guard body.first(where: { !blanks.contains($0) }) == UInt8(ascii: "{"),
              case .object(let members) = JSONValue(parsing: body) else { return nil }
        guard let query = Self.optionalString(members["query"]),
              let operationName = Self.optionalString(members["operationName"]) else { return nil }
        self.init(query: query, operationName: operationName, variables: members["variables"],
                  extensions: members["extensions"])
    }

    /// The parameters of a GET: `query`, `operationName`, and `variables` and `extensions` as JSON
    /// text; the first of each name counts.
    private init?(urlParameters pairs: [FormURLEncoding.Pair]) {
        func parameter(_ name: String) -> String? { pairs.first { $0.name == name }?.value }
        func json(_ name: String) -> JSONValue?? {
            guard let text = parameter(name), !text.isEmpty else { return .some(nil) }
            return JSONValue(parsing: Data(text.utf8)).map { .some($0) }
        }
        guard let variables = json("variables"), let extensions = json("extensions") else { return nil }
        self.init(query: parameter("query"), operationName: parameter("operationName"), variables: variables,
                  extensions: extensions)
    }

    /// The common part of both forms; nil when there is neither a query nor a persisted query's hash.
    private init?(query: String?, operationName: String?, variables: JSONValue?, extensions: JSONValue?) {
        var hash: String?
        if case .object(let extensions) = extensions, case .object(let persisted) = extensions["persistedQuery"],
           case .string(let sha256) = persisted["sha256Hash"] {
            hash = sha256
        }
        guard query != nil || hash != nil else { return nil }
        self.init(query: query, operationName: operationName?.isEmpty == true ? nil : operationName,
                  variables: variables == .null ? nil : variables, persistedQueryHash: hash)
    }

    /// A member that must be a string when present: `.some(nil)` when absent or null, nil when it
    /// is of another type.
    private static func optionalString(_ value: JSONValue?) -> String?? {
        switch value {
        case nil, .null?: return .some(nil)
        case .string(let text)?: return .some(text)
        default: return nil
        }
    }
}
#endif
