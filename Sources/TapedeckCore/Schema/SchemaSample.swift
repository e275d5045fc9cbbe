/// Makes a JSON value that a schema accepts, deterministically: the same schema and seed give the
/// same value on every run; another seed may give another one. For answers from an API document.
///
/// At each place the schema's own values come first: `example`, `examples`, `default`, `const`,
/// `enum` (the first that is valid). Otherwise a value is made to fit: the type (the first listed
/// that is not null), every declared property near the top and the required ones deeper down,
/// `minItems` elements (one near the top), lengths, bounds, `multipleOf`, a valid value for the
/// checked formats, `allOf` merged, the first `oneOf`/`anyOf` branch (the next ones if it fails).
/// A `pattern` is matched when it is simple (literals, classes, groups, `|`, quantifiers);
/// otherwise a few plain strings are tried. The value is checked against the schema, and made
/// again with other choices when it fails; for a schema nothing can satisfy (or one beyond these
/// means), the last try is returned, so ``JSONSchema/isValid(_:)`` tells whether it succeeded.
public struct SchemaSample: Sendable {
    /// What varies the values made (`--seed`); 0 gives the plainest ones.
    public let seed: UInt64

    /// A generator for `seed`.
    public init(seed: UInt64 = 0) {
        self.seed = seed
    }

    /// A value for `schema`.
    public func value(for schema: JSONSchema) -> JSONValue {
        var builder = SampleBuilder(schema: schema, seed: seed)
        return builder.value(for: [schema.root], depth: 0)
    }
}
