import Foundation

/// What to redact before anything is written: named headers, query parameters (and the
/// same names in form bodies) and places in JSON bodies. Never a substring search.
public struct RedactionRules: Sendable, Hashable {
    /// Request headers whose values are replaced (lowercased names).
    public var requestHeaders: Set<String>
    /// Response headers whose values are replaced (lowercased names).
    public var responseHeaders: Set<String>
    /// Query parameters, and form fields of the same name, whose values are replaced (lowercased).
    public var queryParameters: Set<String>
    /// Places in request and response JSON bodies whose values are replaced.
    public var jsonPaths: [JSONPath]

    /// Creates rules; names are compared case-insensitively.
    public init(requestHeaders: Set<String> = [], responseHeaders: Set<String> = [],
                queryParameters: Set<String> = [], jsonPaths: [JSONPath] = []) {
        self.requestHeaders = Set(requestHeaders.map { $0.lowercased() })
        self.responseHeaders = Set(responseHeaders.map { $0.lowercased() })
        self.queryParameters = Set(queryParameters.map { $0.lowercased() })
        self.jsonPaths = jsonPaths
    }

    /// No redaction at all.
    public static let none = RedactionRules()

    /// The defaults of the specification: credentials in headers, query and JSON bodies.
    public static let defaults = RedactionRules(
        requestHeaders: ["authorization", "proxy-authorization", "cookie", "x-api-key"],
        responseHeaders: ["set-cookie"],
        queryParameters: ["access_token", "api_key", "apikey", "client_secret", "password", "token"],
        jsonPaths: ["password", "client_secret", "access_token", "refresh_token", "id_token"].map {
            JSONPath(segments: [.descendant($0)])
        })

    /// These rules plus user rules: a header name applies to requests and responses.
    public func adding(headers: [String] = [], queryParameters: [String] = [], jsonPaths: [JSONPath] = []) -> RedactionRules {
        var rules = self
        rules.requestHeaders.formUnion(headers.map { $0.lowercased() })
        rules.responseHeaders.formUnion(headers.map { $0.lowercased() })
        rules.queryParameters.formUnion(queryParameters.map { $0.lowercased() })
        let known = Set(rules.jsonPaths)
        rules.jsonPaths += jsonPaths.filter { !known.contains($0) }
        return rules
    }
}
