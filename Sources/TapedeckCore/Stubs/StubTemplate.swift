import Foundation

/// Expands `{{...}}` in a templated stub's header values and text or JSON string values:
/// `{{path.NAME}}` (a capture of the path template or regex, or of a `{name}` value pattern),
/// `{{query.NAME}}`, `{{header.NAME}}`, `{{form.NAME}}`, `{{json.PATH}}` (a JSON path into the request
/// body), `{{method}}`, `{{url}}`, `{{uuid}}` and `{{now}}`. An expression it does not know is left as written.
struct StubTemplate {
    /// What the expressions read; `uuid` and `now` are computed only when a template asks.
    struct Context {
        let request: StubRequest
        /// Derived from the seed, the stub and its play count: the same run gives the same ids.
        let uuid: () -> String
        /// ISO 8601.
        let now: () -> String
    }

    /// The response with every template expanded.
    static func expand(_ response: StubResponse, in context: Context) -> StubResponse {
        var expanded = response
        expanded.headers.mapValues { expand($0.value, in: context) }
        if response.body.style == .json, let value = JSONValue(parsing: response.body.data) {
            expanded.body = Body(expandStrings(in: value, context: context).compactData, style: .json)
        } else if let text = response.body.text {
            expanded.body = Body(text: expand(text, in: context))
        }
        return expanded
    }

    /// The text with every `{{expression}}` replaced.
    static func expand(_ text: String, in context: Context) -> String {
        var result = ""
        var rest = text[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            result += rest[..<open.lowerBound]
            let expression = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            result += value(of: expression, in: context) ?? "{{\(expression)}}"
            rest = rest[close.upperBound...]
        }
        return result + rest
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

    private static func expandStrings(in value: JSONValue, context: Context) -> JSONValue {
        switch value {
        case .string(let text): return .string(expand(text, in: context))
        case .array(let items): return .array(items.map { expandStrings(in: $0, context: context) })
        case .object(let members): return .object(members.mapValues { expandStrings(in: $0, context: context) })
        default: return value
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
            return FormURLEncoding.pairs(Substring(request.body.text ?? "")).first { $0.name == name }?.value
        case "json":
            guard let body = JSONValue(parsing: request.body.data),
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
