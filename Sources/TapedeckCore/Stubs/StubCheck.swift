/// Checks of a stub beyond what loading refuses (unknown fields, a `pathRegex` that does not
/// compile): what `tapedeck lint` reports.
package enum StubCheck {
    /// Each `{{path.NAME}}` in a templated response whose NAME the pattern does not capture, and
    /// each filter other than `default: "TEXT"`: a request would always get a 500 for them.
    package static func undefinedCaptures(in stub: Stub) -> [String] {
        let expressions = templateExpressions(in: stub)
        let pattern = stub.request
        let defined = Set((pattern.path?.captureNames ?? []) + (pattern.pathRegex?.groupNames ?? [])
            + [pattern.query, pattern.headers, pattern.form].flatMap { $0.values.compactMap(\.captureName) })
        let undefined = expressions.compactMap { expression -> String? in
            guard let (kind, name) = expression.capture, kind == "path", !defined.contains(name) else { return nil }
            return "the template names {{path.\(name)}}, which the request pattern does not capture"
        }
        let filters = expressions.compactMap { expression in
            expression.badFilter.map { StubTemplateError.badFilter(source: expression.source, filter: $0).description }
        }
        return unique(undefined + filters)
    }

    /// Each value a templated response reads without a default that a request matching the pattern
    /// may lack (a query parameter, header or form field the pattern does not list, a JSON value
    /// its `json` does not hold): such a request gets a 500 `template-failed`.
    package static func possiblyAbsentValues(in stub: Stub) -> [String] {
        let pattern = stub.request
        let problems = templateExpressions(in: stub).compactMap { expression -> String? in
            guard expression.fallback == nil, expression.badFilter == nil, let (kind, name) = expression.capture else { return nil }
            let requirement: String
            switch kind {
            case "query":
                guard pattern.query[name] == nil else { return nil }
                requirement = "the request pattern does not require query parameter \(name.debugDescription)"
            case "header":
                guard !pattern.headers.keys.contains(where: { $0.lowercased() == name.lowercased() }) else { return nil }
                requirement = "the request pattern does not require header \(name.debugDescription)"
            case "form":
                guard pattern.form[name] == nil else { return nil }
                requirement = "the request pattern does not require form field \(name.debugDescription)"
            case "json":
                guard let path = try? JSONPath(name.hasPrefix("$") ? name : "$.\(name)") else {
                    return "\(expression.written) is not a JSON path; a request gets 500 template-failed"
                }
                guard pattern.json.map({ path.values(in: $0).isEmpty }) ?? true else { return nil }
                requirement = "the request pattern's json does not hold \(path)"
            default:
                return nil
            }
            return "\(expression.written) may have no value: \(requirement), and a request without it gets 500 template-failed; "
                + "require it in the pattern or give it a default: \(expression.withDefault)"
        }
        return unique(problems)
    }

    /// The expressions of a templated response (none for an answer computed by Swift code).
    private static func templateExpressions(in stub: Stub) -> [TemplateExpression] {
        guard case .response(let response) = stub.answer, response.templated else { return [] }
        return StubTemplate.templatedTexts(of: response).flatMap(StubTemplate.expressions)
    }

    /// The messages in order, each once.
    private static func unique(_ messages: [String]) -> [String] {
        var seen = Set<String>()
        return messages.filter { seen.insert($0).inserted }
    }
}

extension ValuePattern {
    /// The name a `{name}` value captures under.
    var captureName: String? {
        if case .capture(let name) = self { return name }
        return nil
    }
}
