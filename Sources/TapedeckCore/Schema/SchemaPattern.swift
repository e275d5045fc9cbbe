import Foundation

/// A compiled `pattern` (or `patternProperties` name): an ECMA-262-style regular expression, run
/// through `NSRegularExpression` as an unanchored search, as JSON Schema asks.
///
/// Compiled once per schema; `NSRegularExpression` is immutable and safe to match from any thread.
final class SchemaPattern: @unchecked Sendable {
    /// The expression as written in the schema.
    let source: String
    private let expression: NSRegularExpression

    /// Compiles `source`; nil when it is not a regular expression.
    init?(_ source: String) {
        guard let expression = try? NSRegularExpression(pattern: source) else { return nil }
        self.source = source
        self.expression = expression
    }

    /// Whether the expression matches anywhere in `text`.
    func matches(_ text: String) -> Bool {
        expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
