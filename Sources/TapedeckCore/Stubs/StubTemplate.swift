import Foundation

/// Expands `{{...}}` in a templated stub's header values and text or JSON string values:
/// `{{path.NAME}}` (a capture of the path template or regex, or of a `{name}` value pattern),
/// `{{query.NAME}}`, `{{header.NAME}}`, `{{form.NAME}}`, `{{json.PATH}}` (a JSON path into the request
/// body), `{{method}}`, `{{url}}`, `{{uuid}}` and `{{now}}`. An expression it does not know is left as written.
///
/// What a template may make is bounded: the whole expansion stops past `limit` bytes (a small
/// template repeating `{{json.a}}` over a large request must not answer hundreds of MB), the
/// request body is parsed as JSON once whatever the number of `{{json.…}}`, and an expanded header
/// value with CR, LF or NUL is refused rather than sent (it would split the answer).
struct StubTemplate {
    /// What the expressions read; `uuid` and `now` are computed only when a template asks.
    final class Context {
        let request: StubRequest
        /// Derived from the seed, the stub and its play count: the same run gives the same ids.
        let uuid: () -> String
        /// ISO 8601.
        let now: () -> String
        /// The request body as JSON, parsed on first use.
        private(set) lazy var json: JSONValue? = request.request.body.isReadableWhole ? JSONValue(parsing: request.request.body.data) : nil

        init(request: StubRequest, uuid: @escaping () -> String, now: @escaping () -> String) {
            self.request = request
            self.uuid = uuid
            self.now = now
        }
    }

    /// The response with every template expanded, in at most `limit` bytes of expanded text.
    static func expand(_ response: StubResponse, in context: Context, limit: Int) throws(StubTemplateError) -> StubResponse {
        var budget = OutputBudget(limit: limit)
        var expanded = response
        var headers = HeaderList()
        for field in response.headers {
            headers.append(name: field.name, value: try expand(field.value, in: context, budget: &budget))
        }
        if let unsafe = headers.firstUnsafeField { throw .unsafeHeader(name: unsafe.name) }
        expanded.headers = headers
        if response.body.style == .json, let value = JSONValue(parsing: response.body.data) {
            expanded.body = Body(try expandStrings(in: value, context: context, budget: &budget).compactData, style: .json)
        } else if let text = response.body.text {
            expanded.body = Body(text: try expand(text, in: context, budget: &budget))
        }
        expanded.websocket = try response.websocket?.map { message throws(StubTemplateError) in
            var message = message
            if case .text(let text) = message.content, message.from == .server {
                message.content = .text(try expand(text, in: context, budget: &budget))
            }
            return message
        }
        return expanded
    }

    /// How many bytes of expanded text an answer may still take.
    struct OutputBudget {
        let limit: Int
        var used = 0
    }

    /// The text with every `{{expression}}` replaced, counted against `budget`.
    static func expand(_ text: String, in context: Context, budget: inout OutputBudget) throws(StubTemplateError) -> String {
        var result = ""
        var rest = text[...]
        let (used, limit) = (budget.used, budget.limit)
        func append(_ piece: some StringProtocol) throws(StubTemplateError) {
            result += piece
            guard used + result.utf8.count <= limit else { throw .outputTooLarge(limit: limit) }
        }
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            try append(rest[..<open.lowerBound])
            let expression = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            try append(value(of: expression, in: context) ?? "{{\(expression)}}")
            rest = rest[close.upperBound...]
        }
        try append(rest)
        budget.used += result.utf8.count
        return result
    }

    /// The expressions a text uses, for lint.
    static func expressions(in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            found.append(rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces))
            rest = rest[close.upperBound...]
        }
        return found
    }

    private static func expandStrings(in value: JSONValue, context: Context, budget: inout OutputBudget) throws(StubTemplateError) -> JSONValue {
        switch value {
        case .string(let text):
            return .string(try expand(text, in: context, budget: &budget))
        case .array(let items):
            var expanded: [JSONValue] = []
            for item in items { expanded.append(try expandStrings(in: item, context: context, budget: &budget)) }
            return .array(expanded)
        case .object(let members):
            var expanded = members
            for (key, member) in members { expanded[key] = try expandStrings(in: member, context: context, budget: &budget) }
            return .object(expanded)
        default:
            return value
        }
    }

    private static func value(of expression: String, in context: Context) -> String? {
        let request = context.request.request
        switch expression {
        case "method": return request.method
        case "url": return request.url
        case "uuid": return context.uuid()
        case "now": return context.now()
        default: break
        }
        guard let dot = expression.firstIndex(of: ".") else { return nil }
        let (kind, name) = (expression[..<dot], String(expression[expression.index(after: dot)...]))
        switch kind {
        case "path":
            return context.request.captures[name]
        case "query":
            return FormURLEncoding.pairs(Substring(request.target.query ?? "")).first { $0.name == name }?.value
        case "header":
            return request.headers[name]
        case "form":
            guard request.body.isReadableWhole else { return nil }
            return FormURLEncoding.pairs(Substring(request.body.text ?? "")).first { $0.name == name }?.value
        case "json":
            guard let body = context.json,
                  let path = try? JSONPath(name.hasPrefix("$") ? name : "$.\(name)") else { return nil }
            return path.values(in: body).first.map(plainText)
        default:
            return nil
        }
    }

    /// A JSON value as template text: strings without quotes, the rest as compact JSON.
    private static func plainText(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return String(decoding: value.compactData, as: UTF8.self)
    }
}

/// Why a templated stub answer could not be made; the server answers 500 naming the stub.
public enum StubTemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The expansion went past the limit (`--max-template-output`).
    case outputTooLarge(limit: Int)
    /// An expanded header value holds CR, LF or NUL.
    case unsafeHeader(name: String)

    public var description: String {
        switch self {
        case .outputTooLarge(let limit): "its templates expand past \(limit) bytes (--max-template-output)"
        case .unsafeHeader(let name): "header \(name.debugDescription) expands to a value with CR, LF or NUL, which would split the answer"
        }
    }
}
