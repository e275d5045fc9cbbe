/// A JSON Schema, compiled once, that checks JSON values: the schemas of OpenAPI 3.0 documents
/// (their Schema Object) and of OpenAPI 3.1 documents (JSON Schema 2020-12).
///
/// ```swift
/// let schema = try JSONSchema(document: openAPI, pointer: "#/components/schemas/User", dialect: .openAPI30)
/// for violation in schema.validate(body) { print(violation) } // $.age: expected integer, got string
/// ```
///
/// Checked: `type`, `enum`, `const`, `properties`, `required`, `additionalProperties`,
/// `patternProperties`, `propertyNames`, `dependentRequired`, `dependentSchemas`, `minProperties`,
/// `maxProperties`, `items`, `prefixItems`, `contains` (with `minContains`/`maxContains`),
/// `minItems`, `maxItems`, `uniqueItems`, `minLength`, `maxLength` (in Unicode code points),
/// `pattern` (an unanchored search), `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
/// `multipleOf`, `format` (see ``assertsFormats``), `allOf`, `anyOf`, `oneOf`, `not`,
/// `if`/`then`/`else`, OpenAPI's `discriminator`, and `$ref` to `#/...` pointers in the same
/// document, recursive schemas included. Other keywords are ignored; the few that change what is
/// valid but are not supported (`unevaluatedProperties`, `$dynamicRef`, references to other
/// files) are listed once each in ``warnings``.
public struct JSONSchema: Sendable {
    /// Which flavour of JSON Schema the schema is written in; it decides the few keywords they read
    /// differently.
    public enum Dialect: String, Sendable, Hashable, CaseIterable {
        /// The OpenAPI 3.0 Schema Object: `nullable: true` adds null to `type`; a boolean
        /// `exclusiveMinimum`/`exclusiveMaximum` makes `minimum`/`maximum` exclusive; `$ref` ignores
        /// the keywords beside it; `type` names one type. The 2020-12 forms (type lists, numeric
        /// exclusive bounds, `const`, `prefixItems`, `true`/`false` schemas) are read as well, each
        /// with a warning.
        case openAPI30
        /// JSON Schema 2020-12, as OpenAPI 3.1 uses it: `type` lists (with `"null"`), numeric
        /// `exclusiveMinimum`/`exclusiveMaximum`, `prefixItems`, `const`, `true`/`false` schemas,
        /// `$ref` beside other keywords. `nullable` is ignored, with a warning.
        case draft2020_12
    }

    /// The dialect the schema was read in.
    public let dialect: Dialect
    /// Whether `format` is checked (`date-time`, `date`, `time`, `email`, `uuid`, `uri`, `ipv4`,
    /// `ipv6`, `int32`, `int64`; other formats never are). JSON Schema makes `format` an annotation
    /// unless asked; an API contract usually means it, so it is checked by default.
    public let assertsFormats: Bool
    /// What the schema holds that is not checked, or is read in the other dialect's way; each once.
    public let warnings: [SchemaWarning]

    let nodes: [SchemaNode]
    let root: SchemaNode.ID

    /// Compiles a schema that is a document of its own: its `$ref`s point inside it (`#/$defs/...`).
    public init(_ schema: JSONValue, dialect: Dialect, assertsFormats: Bool = true) throws(SchemaError) {
        try self.init(document: schema, pointer: "", dialect: dialect, assertsFormats: assertsFormats)
    }

    /// Compiles the schema at `pointer` (`#/components/schemas/User`, or `/components/...`) inside
    /// `document`, whose other schemas its `$ref`s may reach.
    ///
    /// Throws ``SchemaError`` for a malformed keyword, an invalid `pattern`, a `$ref` to nowhere, or
    /// a `$ref` loop that never looks inside the value; the error names the schema place.
    public init(document: JSONValue, pointer: String, dialect: Dialect, assertsFormats: Bool = true) throws(SchemaError) {
        guard let start = JSONPointer(pointer) else {
            throw SchemaError(location: JSONPointer.root.description, reason: .unknownReference(pointer))
        }
        var compiler = SchemaCompiler(document: document, dialect: dialect)
        root = try compiler.compile(at: start)
        nodes = compiler.nodes
        warnings = compiler.warnings
        self.dialect = dialect
        self.assertsFormats = assertsFormats
    }

    /// Every way `value` breaks the schema, at most `limit` of them (the first found), sorted by
    /// their place in the value; empty when it is valid.
    public func validate(_ value: JSONValue, limit: Int = 50) -> [SchemaViolation] {
        var validator = SchemaValidator(nodes: nodes, assertsFormats: assertsFormats, limit: limit)
        _ = validator.check(root, value)
        return Self.inDocumentOrder(validator.violations)
    }

    /// Whether `value` is valid; stops at the first violation.
    public func isValid(_ value: JSONValue) -> Bool {
        var validator = SchemaValidator(nodes: nodes, assertsFormats: assertsFormats, limit: 1)
        return validator.check(root, value)
    }

    /// Violations sorted by path (a place before the places inside it, members by name, elements by
    /// index); violations at the same place keep the order they were found in.
    private static func inDocumentOrder(_ violations: [SchemaViolation]) -> [SchemaViolation] {
        violations.enumerated().sorted { left, right in
            let order = compare(left.element.path.segments, right.element.path.segments)
            return order == 0 ? left.offset < right.offset : order < 0
        }.map(\.element)
    }

    private static func compare(_ left: [JSONPath.Segment], _ right: [JSONPath.Segment]) -> Int {
        for (a, b) in zip(left, right) {
            switch (a, b) {
            case let (.index(x), .index(y)) where x != y: return x < y ? -1 : 1
            case let (.key(x), .key(y)) where x != y: return x < y ? -1 : 1
            case (.index, .key): return -1
            case (.key, .index): return 1
            default: continue
            }
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }
}
