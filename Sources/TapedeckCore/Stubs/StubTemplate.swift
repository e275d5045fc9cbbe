import Foundation

/// Expands `{{...}}` in a templated stub's header values and text or JSON string values:
/// `{{path.NAME}}` (a capture of the path template or regex, or of a `{name}` value pattern),
/// `{{query.NAME}}`, `{{header.NAME}}`, `{{form.NAME}}`, `{{json.PATH}}` (a JSON path into the request
/// body), `{{method}}`, `{{url}}`, `{{uuid}}` and `{{now}}`. An expression it does not know is left as written.
///
/// A value the request lacks (`{{query.expand}}` without `?expand=`) fails the answer, naming the
/// expression, unless the expression gives a default: `{{query.expand | default: "none"}}`.
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
            let expression = TemplateExpression(parsing: rest[open.upperBound..<close.lowerBound])
            try append(try value(of: expression, in: context) ?? String(rest[open.lowerBound..<close.upperBound]))
            rest = rest[close.upperBound...]
        }
        try append(rest)
        budget.used += result.utf8.count
        return result
    }

    /// The expressions a text uses, for lint.
    static func expressions(in text: String) -> [TemplateExpression] {
        var found: [TemplateExpression] = []
        var rest = text[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            found.append(TemplateExpression(parsing: rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// The texts of a response that ``expand(_:in:limit:)`` expands: header values, a text body or
    /// a JSON body's string values, and the server's text messages of a WebSocket conversation.
    static func templatedTexts(of response: StubResponse) -> [String] {
        func strings(in value: JSONValue) -> [String] {
            switch value {
            case .string(let text): [text]
            case .array(let items): items.flatMap(strings)
            case .object(let members): members.values.flatMap(strings)
            default: []
            }
        }
        var texts = response.headers.map(\.value)
        if response.body.style == .json, let value = JSONValue(parsing: response.body.data) {
            texts += strings(in: value)
        } else if let text = response.body.text {
            texts.append(text)
        }
        for message in response.websocket ?? [] where message.from == .server {
            if case .text(let text) = message.content { texts.append(text) }
        }
        return texts
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

    /// The text of an expression: its value in the request, else its default; nil for an
    /// expression the template does not know (sent as written).
    private static func value(of expression: TemplateExpression, in context: Context) throws(StubTemplateError) -> String? {
        guard expression.isKnown else { return nil }
        if let filter = expression.badFilter { throw .badFilter(source: expression.source, filter: filter) }
        switch lookUp(expression, in: context) {
        case .found(let value):
            return value
        case .missing(let reason):
            guard let fallback = expression.fallback else { throw .missingValue(source: expression.source, reason: reason) }
            return fallback
        }
    }

    /// What a known expression finds in the request.
    private enum Lookup {
        case found(String)
        /// The request lacks it, for this reason.
        case missing(String)
    }

    private static func lookUp(_ expression: TemplateExpression, in context: Context) -> Lookup {
        let request = context.request.request
        switch expression.source {
        case "method": return .found(request.method)
        case "url": return .found(request.url)
        case "uuid": return .found(context.uuid())
        case "now": return .found(context.now())
        default: break
        }
        guard let (kind, name) = expression.capture else { return .missing("it is not a value the template knows") }
        func found(_ value: String?, else reason: @autoclosure () -> String) -> Lookup {
            value.map(Lookup.found) ?? .missing(reason())
        }
        switch kind {
        case "path":
            return found(context.request.captures[name], else: "the request pattern captured no \(name.debugDescription)")
        case "query":
            return found(FormURLEncoding.pairs(Substring(request.target.query ?? "")).first { $0.name == name }?.value,
                         else: "the request has no query parameter \(name.debugDescription)")
        case "header":
            return found(request.headers[name], else: "the request has no header \(name.debugDescription)")
        case "form":
            guard request.body.isReadableWhole else { return .missing("the request body is too large to read whole") }
            return found(FormURLEncoding.pairs(Substring(request.body.text ?? "")).first { $0.name == name }?.value,
                         else: "the request has no form field \(name.debugDescription)")
        default:
            guard let path = try? JSONPath(name.hasPrefix("$") ? name : "$.\(name)") else {
                return .missing("\(name.debugDescription) is not a JSON path")
            }
            guard request.body.isReadableWhole else { return .missing("the request body is too large to read whole") }
            guard let body = context.json else { return .missing("the request body is not JSON") }
            return found(path.values(in: body).first.map(plainText), else: "the request body has no value at \(path)")
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
    /// The request lacks the value an expression without a default reads (`source` is `query.expand`).
    case missingValue(source: String, reason: String)
    /// An expression's filter is not `default: "TEXT"`.
    case badFilter(source: String, filter: String)

    public var description: String {
        switch self {
        case .outputTooLarge(let limit): "its templates expand past \(limit) bytes (--max-template-output)"
        case .unsafeHeader(let name): "header \(name.debugDescription) expands to a value with CR, LF or NUL, which would split the answer"
        case let .missingValue(source, reason):
            "{{\(source)}} has no value: \(reason); give it a default ({{\(source) | default: \"…\"}}) or require it in the request pattern"
        case let .badFilter(source, filter):
            "{{\(source)}} has the filter \(filter.debugDescription); the only filter is default: \"TEXT\""
        }
    }
}
