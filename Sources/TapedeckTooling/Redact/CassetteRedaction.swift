import TapedeckCore

/// Applies the core ``Redactor`` to every interaction of a cassette and says what changed where.
public struct CassetteRedaction: Sendable {
    /// The redactor applied.
    public let redactor: Redactor

    /// Creates the step with rules.
    public init(rules: RedactionRules) {
        redactor = Redactor(rules: rules)
    }

    /// The cassette with every secret replaced, and one line per change: `interactions[2]: request header Authorization`.
    public func apply(to cassette: Cassette) -> (cassette: Cassette, changes: [String]) {
        var result = cassette
        var changes: [String] = []
        for index in result.interactions.indices {
            let (redacted, changed) = redactor.redact(result.interactions[index])
            result.interactions[index] = redacted
            changes += changed.map { "interactions[\(index)]: \($0)" }
        }
        return (result, changes)
    }
}
