/// Checks of a stub beyond what loading refuses (unknown fields, a `pathRegex` that does not
/// compile): what `tapedeck lint` reports.
package enum StubCheck {
    /// Each `{{path.NAME}}` in a templated response whose NAME the pattern does not capture.
    package static func undefinedCaptures(in stub: Stub) -> [String] {
        guard case .response(let response) = stub.answer, response.templated else { return [] }
        let pattern = stub.request
        let defined = Set((pattern.path?.captureNames ?? []) + (pattern.pathRegex?.groupNames ?? [])
            + [pattern.query, pattern.headers, pattern.form].flatMap { $0.values.compactMap(\.captureName) })
        let texts = response.headers.map(\.value) + [response.body.text ?? ""]
        return texts.flatMap(StubTemplate.expressions).filter { $0.hasPrefix("path.") }
            .map { String($0.dropFirst("path.".count)) }
            .filter { !defined.contains($0) }
            .map { "the template names {{path.\($0)}}, which the request pattern does not capture" }
    }
}

extension ValuePattern {
    /// The name a `{name}` value captures under.
    var captureName: String? {
        if case .capture(let name) = self { return name }
        return nil
    }
}
