import Foundation

/// What a request must look like for a stub to answer it. Every field is optional; all given must hold.
public struct RequestPattern: Sendable {
    /// The method, or `*`.
    public var method: String?
    /// The host: `api.example.com`, or an origin such as `https://api.example.com:8443` (scheme and port too).
    public var host: String?
    /// The path: exact, or a template with `{name}` (one segment, captured), `{name*}` (the rest) and `*` (one segment).
    public var path: PathTemplate?
    /// A regular expression over the whole path; named groups are captured.
    public var pathRegex: StubRegex?
    /// Query parameters that must be present, with a value pattern each.
    public var query: [String: ValuePattern]
    /// Headers that must be present (names compare case-insensitively).
    public var headers: [String: ValuePattern]
    /// Form fields (application/x-www-form-urlencoded) that must be present.
    public var form: [String: ValuePattern]
    /// A JSON value the request body must contain: objects by subset, arrays and scalars equal, `"*"` any value.
    public var json: JSONValue?
    /// Text the raw body must contain.
    public var bodyContains: String?
    #if GraphQL
    /// What a GraphQL request must run: the operation's name, its variables by subset, its query
    /// in canonical form (``GraphQLPattern``).
    public var graphQL: GraphQLPattern?
    #endif

    /// Creates a pattern; with no fields it matches every request.
    public init(method: String? = nil, host: String? = nil, path: String? = nil, pathRegex: StubRegex? = nil,
                query: [String: ValuePattern] = [:], headers: [String: ValuePattern] = [:], form: [String: ValuePattern] = [:],
                json: JSONValue? = nil, bodyContains: String? = nil) {
        self.method = method
        self.host = host
        self.path = path.map(PathTemplate.init)
        self.pathRegex = pathRegex
        self.query = query
        self.headers = headers
        self.form = form
        self.json = json
        self.bodyContains = bodyContains
    }

    /// The request's captures when it matches; otherwise the first field that failed.
    public func evaluate(_ request: CassetteRequest) -> Result<[String: String], PatternFailure> {
        let target = request.target
        var captures: [String: String] = [:]
        if let method, method != "*", method.uppercased() != request.method.uppercased() {
            return .failure(PatternFailure(field: "method", difference: "expected \(method), received \(request.method)"))
        }
        if let host, !Self.hostMatches(host, target) {
            return .failure(PatternFailure(field: "host", difference: "expected \(host), received \(target.origin ?? "no host")"))
        }
        let path = FormURLEncoding.decode(Substring(target.path))
        if let template = self.path {
            guard let found = template.match(path) else {
                return .failure(PatternFailure(field: "path", difference: "expected \(template.text), received \(target.path)"))
            }
            captures.merge(found) { $1 }
        }
        if let pathRegex {
            guard let found = pathRegex.match(path) else {
                return .failure(PatternFailure(field: "pathRegex", difference: "\(pathRegex.pattern) does not match \(target.path)"))
            }
            captures.merge(found) { $1 }
        }
        let queryPairs = FormURLEncoding.pairs(Substring(target.query ?? "")).map { ($0.name, $0.value) }
        if let failure = Self.check(query, against: queryPairs, field: "query", captures: &captures) { return .failure(failure) }
        let headerPairs = request.headers.map { ($0.name.lowercased(), $0.value) }
        let loweredHeaders = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        if let failure = Self.check(loweredHeaders, against: headerPairs, field: "headers", captures: &captures) { return .failure(failure) }
        if !form.isEmpty || json != nil || bodyContains?.isEmpty == false, !request.body.isReadableWhole {
            return .failure(PatternFailure(field: "body", difference: "the body of \(request.body.count) bytes is over the "
                                           + "\(Body.wholeReadLimit >> 20) MiB that form, json and bodyContains read"))
        }
        if !form.isEmpty {
            let formPairs = FormURLEncoding.pairs(Substring(request.body.text ?? "")).map { ($0.name, $0.value) }
            if let failure = Self.check(form, against: formPairs, field: "form", captures: &captures) { return .failure(failure) }
        }
        if let json {
            guard let body = JSONValue(parsing: request.body.data) else {
                return .failure(PatternFailure(field: "json", difference: "the body is not JSON"))
            }
            if let place = Self.firstMismatch(expected: json, actual: body, at: "$") {
                return .failure(PatternFailure(field: "json", difference: "the body differs at \(place)"))
            }
        }
        if let bodyContains, request.body.data.range(of: Data(bodyContains.utf8)) == nil, !bodyContains.isEmpty {
            return .failure(PatternFailure(field: "bodyContains", difference: "the body does not contain \"\(bodyContains)\""))
        }
        #if GraphQL
        if let failure = graphQL?.failure(for: request) { return .failure(failure) }
        #endif
        return .success(captures)
    }

    /// The first path segment when the pattern's path starts with a literal one: what ``StubSet`` indexes.
    var firstLiteralSegment: String? { path?.firstLiteralSegment }

    private static func hostMatches(_ expected: String, _ target: RequestTarget) -> Bool {
        if expected.contains("://") {
            let wanted = RequestTarget(expected)
            return wanted.scheme == target.scheme && wanted.host?.lowercased() == target.host?.lowercased() && wanted.port == target.port
        }
        return expected.lowercased() == target.host?.lowercased()
    }

    /// Checks each listed name against the pairs; nil when all hold.
    private static func check(_ patterns: [String: ValuePattern], against pairs: [(String, String)], field: String,
                              captures: inout [String: String]) -> PatternFailure? {
        for (name, pattern) in patterns.sorted(by: { $0.key < $1.key }) {
            let values = pairs.filter { $0.0 == name }.map(\.1)
            guard !values.isEmpty else { return PatternFailure(field: field, difference: "\(name) is missing") }
            guard let value = values.first(where: pattern.matches) else {
                return PatternFailure(field: field, difference: "\(name): expected \(pattern), received \(values.joined(separator: ", "))")
            }
            if case .capture(let capture) = pattern { captures[capture] = value }
        }
        return nil
    }

    /// Where `actual` stops containing `expected`, or nil when it contains it.
    static func firstMismatch(expected: JSONValue, actual: JSONValue, at path: String) -> String? {
        switch (expected, actual) {
        case (.string("*"), _):
            return nil
        case let (.object(wanted), .object(present)):
            for (key, value) in wanted.sorted(by: { $0.key < $1.key }) {
                guard let member = present[key] else { return "\(path).\(key)" }
                if let place = firstMismatch(expected: value, actual: member, at: "\(path).\(key)") { return place }
            }
            return nil
        case let (.array(wanted), .array(present)):
            guard wanted.count == present.count else { return path }
            for (index, (value, element)) in zip(wanted, present).enumerated() {
                if let place = firstMismatch(expected: value, actual: element, at: "\(path)[\(index)]") { return place }
            }
            return nil
        default:
            return expected == actual ? nil : path
        }
    }
}

/// The pattern field a request failed, for near-miss diagnoses.
public struct PatternFailure: Sendable, Hashable, Error {
    /// The field, such as `path` or `json`.
    public let field: String
    /// What differed.
    public let difference: String
}

/// A value in a `query`, `headers` or `form` pattern: exact, `*` (any value), or `{name}` (any value, captured).
public enum ValuePattern: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// This value exactly.
    case exact(String)
    /// Any value.
    case any
    /// Any value, captured under a name.
    case capture(String)

    /// Reads `*`, `{name}` or an exact value.
    public init(_ text: String) {
        if text == "*" {
            self = .any
        } else if text.hasPrefix("{"), text.hasSuffix("}"), text.count > 2 {
            self = .capture(String(text.dropFirst().dropLast()))
        } else {
            self = .exact(text)
        }
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// Whether a value fits.
    public func matches(_ value: String) -> Bool {
        if case .exact(let expected) = self { return expected == value }
        return true
    }

    public var description: String {
        switch self {
        case .exact(let value): return value
        case .any: return "*"
        case .capture(let name): return "{\(name)}"
        }
    }
}

/// A path template: `/users/{id}`, `/files/{path*}`, `/teams/*/members`, or an exact path.
public struct PathTemplate: Sendable, Hashable {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case capture(String)
        case rest(String)
        case any
    }

    /// The template as written.
    public let text: String
    let segments: [Segment]

    /// Reads a template.
    public init(_ text: String) {
        self.text = text
        segments = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            if part == "*" { return .any }
            if part.hasPrefix("{"), part.hasSuffix("*}") { return .rest(String(part.dropFirst().dropLast(2))) }
            if part.hasPrefix("{"), part.hasSuffix("}"), part.count > 2 { return .capture(String(part.dropFirst().dropLast())) }
            return .literal(String(part))
        }
    }

    /// The names the template captures.
    public var captureNames: [String] {
        segments.compactMap {
            switch $0 {
            case .capture(let name), .rest(let name): return name
            case .literal, .any: return nil
            }
        }
    }

    /// The first segment when it is literal.
    var firstLiteralSegment: String? {
        if case .literal(let first)? = segments.first { return first }
        return nil
    }

    /// The captures when the (decoded) path fits; nil otherwise.
    func match(_ path: String) -> [String: String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        var captures: [String: String] = [:]
        for (position, segment) in segments.enumerated() {
            if case .rest(let name) = segment {
                guard position <= parts.count else { return nil }
                captures[name] = parts[position...].joined(separator: "/")
                return captures
            }
            guard position < parts.count else { return nil }
            switch segment {
            case .literal(let literal): guard literal == parts[position] else { return nil }
            case .capture(let name): guard !parts[position].isEmpty else { return nil }; captures[name] = parts[position]
            case .any: guard !parts[position].isEmpty else { return nil }
            case .rest: break
            }
        }
        return parts.count == segments.count ? captures : nil
    }
}

/// A regular expression over the whole path, with its named groups.
///
/// Compiled once, when the stub is read. Matching has a time budget (``matchBudget``): an
/// expression that backtracks without end on some path (`^/(a+)+$` against `/aaaa…ab`) is
/// stopped there and counts as not matching, so one stub cannot stall the server.
public struct StubRegex: Sendable, Hashable {
    /// The expression as written.
    public let pattern: String
    /// The named groups, in order.
    public let groupNames: [String]
    /// The expression anchored to the whole path, compiled.
    private let compiled: Compiled

    /// The longest one match may run before it is stopped.
    public static let matchBudget: TimeInterval = 0.025

    /// Compiles an expression.
    ///
    /// - Throws: ``StubRegexError`` when it does not compile.
    public init(_ pattern: String) throws(StubRegexError) {
        do {
            _ = try NSRegularExpression(pattern: pattern)
            compiled = Compiled(try NSRegularExpression(pattern: "^(?:\(pattern))$"))
        } catch {
            throw StubRegexError(pattern: pattern, reason: "\(error.localizedDescription)")
        }
        self.pattern = pattern
        groupNames = Self.namedGroups(in: pattern)
    }

    /// The named groups' values when the expression matches the whole path within ``matchBudget``.
    func match(_ path: String) -> [String: String]? {
        let deadline = Date(timeIntervalSinceNow: Self.matchBudget)
        var found: NSTextCheckingResult?
        compiled.expression.enumerateMatches(in: path, options: [.reportProgress],
                                             range: NSRange(path.startIndex..., in: path)) { result, _, stop in
            if let result {
                found = result
                stop.pointee = true
            } else if Date() > deadline {
                stop.pointee = true
            }
        }
        guard let found else { return nil }
        var captures: [String: String] = [:]
        for name in groupNames {
            let range = found.range(withName: name)
            if range.location != NSNotFound, let swiftRange = Range(range, in: path) { captures[name] = String(path[swiftRange]) }
        }
        return captures
    }

    public static func == (lhs: StubRegex, rhs: StubRegex) -> Bool { lhs.pattern == rhs.pattern }

    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    /// A compiled expression; `NSRegularExpression` is immutable and safe to match from any thread.
    private final class Compiled: @unchecked Sendable {
        let expression: NSRegularExpression
        init(_ expression: NSRegularExpression) { self.expression = expression }
    }

    /// The names of `(?<name>...)` groups.
    private static func namedGroups(in pattern: String) -> [String] {
        var names: [String] = []
        var rest = pattern[...]
        while let start = rest.range(of: "(?<") {
            let after = rest[start.upperBound...]
            if let first = after.first, first != "=", first != "!", let end = after.firstIndex(of: ">") {
                names.append(String(after[..<end]))
            }
            rest = after
        }
        return names
    }
}

/// A `pathRegex` that does not compile.
public struct StubRegexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The expression.
    public let pattern: String
    /// Why it does not compile.
    public let reason: String

    public var description: String { "pathRegex \"\(pattern)\" does not compile: \(reason)" }
}
