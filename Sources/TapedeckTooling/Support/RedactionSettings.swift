import TapedeckCore

/// The redaction options every tool shares with `tapedeck record`, turned into the core's rules.
public struct RedactionSettings: Sendable, Hashable {
    /// Extra headers to redact, in requests and responses.
    public var headers: [String]
    /// Extra query parameters (and form fields of the same name) to redact.
    public var queryParameters: [String]
    /// Extra JSON paths to redact, such as `$.user.ssn` or `$..secret`.
    public var jsonPaths: [String]
    /// Whether the default rules of the specification apply too.
    public var useDefaults: Bool

    /// Creates settings; with no arguments, the default rules only.
    public init(headers: [String] = [], queryParameters: [String] = [], jsonPaths: [String] = [], useDefaults: Bool = true) {
        self.headers = headers
        self.queryParameters = queryParameters
        self.jsonPaths = jsonPaths
        self.useDefaults = useDefaults
    }

    /// The core rules; a JSON path that does not parse is bad input.
    public func rules() throws(ToolingError) -> RedactionRules {
        var paths: [JSONPath] = []
        for text in jsonPaths {
            do {
                paths.append(try JSONPath(text))
            } catch {
                throw ToolingError(file: nil, kind: .badInput(path: "--redact-json-path \(text)", message: "\(error)"))
            }
        }
        let base = useDefaults ? RedactionRules.defaults : RedactionRules.none
        return base.adding(headers: headers, queryParameters: queryParameters, jsonPaths: paths)
    }
}
