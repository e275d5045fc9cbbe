import Foundation

/// What the matcher may ignore or must also compare; the same in the CLI and in the connector.
public struct MatchOptions: Sendable, Hashable {
    /// Query parameters left out of the query comparison.
    public var ignoredQueryParameters: Set<String>
    /// Form fields left out of form body comparison.
    public var ignoredFormFields: Set<String>
    /// Places in JSON bodies left out of the comparison, such as `$.meta.requestId` or `$..nonce`.
    public var ignoredJSONPaths: [JSONPath]
    /// Whether bodies are not compared at all.
    public var ignoreBody: Bool
    /// Headers that must also match (names compare case-insensitively).
    public var matchedHeaders: [String]
    /// The gRPC services' messages (`--proto-descriptor-set`): with it, a gRPC request's messages
    /// are compared as JSON by value and a diagnosis names the first differing field.
    public var protoSchema: ProtoSchema?

    /// Creates options; the defaults compare method, host, path, query and body.
    public init(ignoredQueryParameters: Set<String> = [], ignoredFormFields: Set<String> = [],
                ignoredJSONPaths: [JSONPath] = [], ignoreBody: Bool = false, matchedHeaders: [String] = [],
                protoSchema: ProtoSchema? = nil) {
        self.ignoredQueryParameters = ignoredQueryParameters
        self.ignoredFormFields = ignoredFormFields
        self.ignoredJSONPaths = ignoredJSONPaths
        self.ignoreBody = ignoreBody
        self.matchedHeaders = matchedHeaders
        self.protoSchema = protoSchema
    }

    /// The default rules.
    public static let `default` = MatchOptions()

    /// The active rules in words, for diagnoses.
    public var ruleDescriptions: [String] {
        var rules = ["method", "host (when the request names it)", "path", "query (any order)"]
        if !ignoredQueryParameters.isEmpty { rules.append("query ignoring \(ignoredQueryParameters.sorted().joined(separator: ", "))") }
        if ignoreBody {
            rules.append("body ignored")
        } else {
            rules.append("body (by content type)")
            if !ignoredFormFields.isEmpty { rules.append("form ignoring \(ignoredFormFields.sorted().joined(separator: ", "))") }
            if !ignoredJSONPaths.isEmpty { rules.append("JSON ignoring \(ignoredJSONPaths.map(\.description).joined(separator: ", "))") }
            #if GraphQL
            rules.append("GraphQL: the operation (canonical form) and the variables as JSON, in place of the body")
            #endif
        }
        if !matchedHeaders.isEmpty { rules.append("headers \(matchedHeaders.joined(separator: ", "))") }
        if protoSchema != nil && !ignoreBody { rules.append("gRPC messages as JSON by their descriptors") }
        rules.append("HEAD: a recorded HEAD, else the recorded GET")
        rules.append("Range, If-None-Match, If-Modified-Since (same values preferred; no 206 or 304 while a full answer exists)")
        return rules
    }
}
