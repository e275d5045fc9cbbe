import Foundation
import PropertyBased
import Testing
@testable import TapedeckCore
import TapedeckTestSupport

/// Tapedeck's JSON Schema validator against an outside judge, Python's `jsonschema`
/// (`scripts/jsonschema_judge.py`): hundreds of generated schemas and values, judged in one process.
@Suite("JSON Schema against jsonschema")
struct JSONSchemaDifferentialTests {
    @Test("the judge knows right from wrong (a fixed set of cases with known answers)", .requires(.jsonschema))
    func judgeSanity() throws {
        let known: [(SchemaCase, String)] = [
            (SchemaCase(.openAPI30, #"{"type": "integer", "nullable": true}"#, "null"), "valid"),
            (SchemaCase(.openAPI30, #"{"type": "integer", "minimum": 5, "exclusiveMinimum": true}"#, "5"), "invalid"),
            (SchemaCase(.openAPI30, #"{"type": "integer"}"#, "1.0"), "valid"),
            (SchemaCase(.openAPI30, ##"{"$ref": "#/components/schemas/A", "type": "string", "components": {"schemas": {"A": {"type": "integer"}}}}"##, "2"), "valid"),
            (SchemaCase(.draft2020_12, #"{"type": ["integer", "null"], "exclusiveMinimum": 5}"#, "5"), "invalid"),
            (SchemaCase(.draft2020_12, #"{"format": "int32"}"#, "3000000000"), "invalid"),
            (SchemaCase(.draft2020_12, #"{"format": "date"}"#, #""2026-02-30""#), "invalid"),
            (SchemaCase(.draft2020_12, #"{"prefixItems": [{"type": "string"}], "items": false}"#, #"["a"]"#), "valid"),
        ]
        let verdicts = try SchemaJudge.verdicts(known.map(\.0))
        #expect(verdicts == known.map(\.1))
        for (schemaCase, expected) in known {
            #expect(try JSONSchema(schemaCase.schema, dialect: schemaCase.dialect).isValid(schemaCase.instance) == (expected == "valid"),
                    "\(schemaCase)")
        }
    }

    @Test("Tapedeck and jsonschema agree on every generated case, in both dialects", .requires(.jsonschema))
    func agreesWithJSONSchema() async throws {
        let cases = Generator<[SchemaCase], [[SchemaCase]]>(
            run: { rng in
                var cases: [SchemaCase] = []
                for dialect in JSONSchema.Dialect.allCases {
                    var maker = SchemaCaseMaker(dialect: dialect)
                    for _ in 0..<400 { cases.append(maker.makeCase(using: &rng)) }
                }
                return cases
            },
            shrink: { _ in [] }
        )
        await propertyCheck(count: 1, input: cases) { cases in
            try Self.compareWithJudge(cases)
        }
    }

    /// Judges every case with jsonschema in one process and records each disagreement with Tapedeck.
    static func compareWithJudge(_ cases: [SchemaCase], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let verdicts = try SchemaJudge.verdicts(cases)
        var disagreements = 0
        var validCount = 0
        for (schemaCase, verdict) in zip(cases, verdicts) {
            let compiled: JSONSchema
            do {
                compiled = try JSONSchema(schemaCase.schema, dialect: schemaCase.dialect)
            } catch {
                Issue.record("\(error)\n\(schemaCase)", sourceLocation: sourceLocation)
                continue
            }
            let violations = compiled.validate(schemaCase.instance)
            if violations.isEmpty { validCount += 1 }
            guard verdict != (violations.isEmpty ? "valid" : "invalid") else { continue }
            disagreements += 1
            if disagreements <= 10 {
                Issue.record("""
                    jsonschema says \(verdict), Tapedeck says \(violations.isEmpty ? "valid" : "invalid: \(violations)")
                    \(schemaCase)
                    """, sourceLocation: sourceLocation)
            }
        }
        #expect(disagreements == 0, "\(disagreements) of \(cases.count) cases disagree", sourceLocation: sourceLocation)
        // Both verdicts are common enough for the comparison to mean something.
        #expect(validCount >= cases.count / 5 && validCount <= cases.count * 4 / 5,
                "\(validCount) of \(cases.count) cases are valid", sourceLocation: sourceLocation)
    }
}

/// One question for the judge: is `instance` valid against the schema document `schema`?
struct SchemaCase: Sendable, CustomStringConvertible {
    var dialect: JSONSchema.Dialect
    var schema: JSONValue
    var instance: JSONValue

    init(dialect: JSONSchema.Dialect, schema: JSONValue, instance: JSONValue) {
        self.dialect = dialect
        self.schema = schema
        self.instance = instance
    }

    /// A case written as JSON texts.
    init(_ dialect: JSONSchema.Dialect, _ schema: String, _ instance: String) {
        self.init(dialect: dialect, schema: JSONValue(schemaTestText: schema), instance: JSONValue(schemaTestText: instance))
    }

    /// The judge's input line, for a failure's report.
    var description: String { String(decoding: line, as: UTF8.self) }

    /// The case as one line of the judge's input.
    var line: Data {
        JSONValue.object(["dialect": .string(dialect.rawValue), "schema": schema, "instance": instance]).compactData
    }
}

/// Runs `scripts/jsonschema_judge.py` once over many cases.
enum SchemaJudge {
    /// `valid`, `invalid` or `error: ...` for each case, in order.
    static func verdicts(_ cases: [SchemaCase]) throws -> [String] {
        let folder = try makeTemporaryDirectory()
        let file = folder.appendingPathComponent("cases.jsonl")
        try Data(cases.map(\.line).joined(separator: Data("\n".utf8))).write(to: file)
        let script = repositoryRoot.appendingPathComponent("scripts/jsonschema_judge.py").path
        let result = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, file.path],
                                          mergingErrors: false, timeout: 120)
        let lines = String(decoding: result.standardOutput, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.output)")
        #expect(lines.count == cases.count, "\(result.output)")
        return lines
    }
}

/// Makes random schemas and values near them (values that mostly fit, with deliberate near misses),
/// in one dialect's forms; with `satisfiable`, only schemas some value can satisfy.
///
/// It stays within what both validators define alike: no `uri` format (jsonschema needs an extra
/// package for it), no discriminator (an OpenAPI keyword jsonschema does not know), no leap seconds,
/// regular expressions that ICU and Python read the same way.
struct SchemaCaseMaker {
    let dialect: JSONSchema.Dialect
    var satisfiable = false

    static let names = ["a", "b", "id", "x-tag"]
    static let patterns = ["^[a-z]+$", "^[0-9]+$", "b", "^a", "c$", "^[A-Z][a-z]*$", "\\d", "^.{2,3}$", "^(ab|cd)+$", "x?y", "^\\w+$"]
    static let stringFormats = ["date-time", "date", "time", "email", "uuid", "ipv4", "ipv6"]
    static let strings = ["", "a", "ab", "abc", "abcd", "ABC", "Abc", "a1", "123", "abab", "xy", "cd", "hello world", "é", "👍🏽",
                          "2026-11-21T10:00:00Z", "2026-11-21T10:00:00.5+01:00", "2026-11-21", "10:00:00Z", "a@example.com",
                          "123e4567-e89b-12d3-a456-426614174000", "192.0.2.1", "::1", "2001:db8::1", "not-a-date", "2026-02-30",
                          "256.1.1.1", "1::2::3", "10:00:00", "2026-11-21T25:00:00Z", "123e4567e89b12d3a456426614174000", "1.2.3",
                          "𝄞", "😀😀", "ééé", "2024-02-29", "2023-02-29", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z"]

    /// Near misses and hits for each checked string format, on which jsonschema and Tapedeck agree.
    static let formatted: [String: [String]] = [
        "date-time": ["2026-11-21T10:00:00Z", "2026-11-21t10:00:00.5+01:00", "2024-02-29T10:00:00Z", "2023-02-29T10:00:00Z",
                      "2026-11-21T25:00:00Z", "2026-11-21 10:00:00Z", "2026-11-21T10:00:00", "0000-01-01T00:00:00Z", "2026-11-21T10:00:00.Z"],
        "date": ["2026-11-21", "2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29", "2026-13-01", "2026-1-21", "0000-01-01"],
        "time": ["10:00:00Z", "23:59:59.5+02:00", "10:00:00", "25:00:00Z", "10:00:00+2:00", "10:00Z", "10:00:00z"],
        "email": ["a@example.com", "first.last@sub.example.org", "plain", "hello world"],
        "uuid": ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000",
                 "123e4567-e89b-12d3-a456-42661417400g"],
        "ipv4": ["192.0.2.1", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5"],
        "ipv6": ["::", "::1", "2001:db8::8a2e:370:7334", "1:2:3:4:5:6:7:8", "::ffff:192.0.2.1", "1:2:3:4:5:6:7::", "1::2::3", "12345::",
                 "1::2:3:4:5:6:7:8", ":1::", "1:2:3:4:5:6:7:8:9", "::1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "::01.2.3.4", "fe80::1%eth0"],
    ]

    /// The document's named schemas, for `$ref`s: `#/$defs/NAME` or `#/components/schemas/NAME`.
    private var definitions: [(name: String, schema: JSONValue)] = []

    init(dialect: JSONSchema.Dialect, satisfiable: Bool = false) {
        self.dialect = dialect
        self.satisfiable = satisfiable
    }

    private var referencePrefix: String { dialect == .openAPI30 ? "#/components/schemas/" : "#/$defs/" }

    /// A schema document and a value near it.
    mutating func makeCase<R: RandomNumberGenerator>(using rng: inout R) -> SchemaCase {
        let document = makeDocument(using: &rng)
        return SchemaCase(dialect: dialect, schema: document, instance: value(near: document, in: document, depth: 0, using: &rng))
    }

    /// A root schema, with named schemas beside it that the root may reference.
    mutating func makeDocument<R: RandomNumberGenerator>(using rng: inout R) -> JSONValue {
        definitions = []
        if Bool.random(using: &rng) {
            // A recursive list: each node's `next` is another node.
            let name = "Node"
            let node: JSONValue = .object(["type": .string("object"), "required": .array([.string("value")]), "properties": .object([
                "value": .object(["type": .string("integer")]),
                "next": .object(["$ref": .string(referencePrefix + name)]),
            ])])
            definitions.append((name, node))
        }
        for index in 0..<Int.random(in: 0...2, using: &rng) {
            definitions.append(("S\(index)", schema(depth: 1, using: &rng)))
        }
        var root = schema(depth: 3, using: &rng)
        if case .bool = root { root = .object(["allOf": .array([root])]) }
        guard case .object(var members) = root, !definitions.isEmpty else { return root }
        let named = JSONValue.object(Dictionary(uniqueKeysWithValues: definitions.map { ($0.name, $0.schema) }))
        if dialect == .openAPI30 {
            members["components"] = .object(["schemas": named])
        } else {
            members["$defs"] = named
        }
        return .object(members)
    }

    // MARK: Schemas

    private func chance<R: RandomNumberGenerator>(_ probability: Double, _ rng: inout R) -> Bool {
        Double.random(in: 0..<1, using: &rng) < probability
    }

    private func pick<T, R: RandomNumberGenerator>(_ options: [T], _ rng: inout R) -> T {
        options[Int.random(in: 0..<options.count, using: &rng)]
    }

    /// A random schema `depth` levels deep at most.
    func schema<R: RandomNumberGenerator>(depth: Int, using rng: inout R) -> JSONValue {
        if dialect == .draft2020_12 && !satisfiable && chance(0.04, &rng) { return .bool(chance(0.7, &rng)) }
        if !definitions.isEmpty && chance(0.12, &rng) {
            var reference: [String: JSONValue] = ["$ref": .string(referencePrefix + pick(definitions, &rng).name)]
            // OpenAPI 3.0 ignores keywords beside $ref; 2020-12 applies them.
            if !satisfiable && chance(0.3, &rng) { reference["type"] = .string(pick(["string", "object", "integer"], &rng)) }
            return .object(reference)
        }
        var kinds = ["string", "integer", "number", "boolean", "enum", "empty"]
        if dialect == .draft2020_12 { kinds += ["null", "const", "typeList"] }
        if depth > 0 {
            kinds += ["array", "array", "object", "object", "object", "allOf", "anyOf", "oneOf"]
            if !satisfiable { kinds += ["not"] + (dialect == .draft2020_12 ? ["if"] : []) }
        }
        var schema: [String: JSONValue]
        switch pick(kinds, &rng) {
        case "string": schema = stringSchema(&rng)
        case "integer": schema = numberSchema(integer: true, &rng)
        case "number": schema = numberSchema(integer: false, &rng)
        case "boolean": schema = ["type": .string("boolean")]
        case "null": schema = ["type": .string("null")]
        case "enum":
            let type = pick(["string", "integer"], &rng)
            let values: [JSONValue] = type == "string" ? [.string("a"), .string("abc"), .string("")] : [.integer(1), .integer(2), .integer(3)]
            schema = ["enum": .array(Array(values.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng))))]
            if satisfiable || chance(0.7, &rng) { schema["type"] = .string(type) }
            if !satisfiable && chance(0.3, &rng) { schema["enum"] = .array([.null, .integer(1), .string("a"), .object(["a": .integer(1)])]) }
        case "const":
            schema = ["const": pick([.string("a"), .integer(2), .null, .array([.integer(1)]), .object(["a": .integer(1)])], &rng)]
        case "typeList":
            schema = ["type": .array(Array(["string", "integer", "null", "boolean"].shuffled(using: &rng).prefix(2)).map(JSONValue.string))]
        case "array": schema = arraySchema(depth: depth, &rng)
        case "object": schema = objectSchema(depth: depth, &rng)
        case "allOf":
            // Satisfiable: object parts over different properties.
            if satisfiable {
                schema = ["allOf": .array([
                    .object(["type": .string("object"), "required": .array([.string("a")]), "properties": .object(["a": self.schema(depth: depth - 1, using: &rng)])]),
                    .object(["properties": .object(["b": self.schema(depth: depth - 1, using: &rng)])]),
                ])]
            } else {
                schema = ["allOf": .array((0..<Int.random(in: 1...3, using: &rng)).map { _ in self.schema(depth: depth - 1, using: &rng) })]
            }
        case "anyOf", "oneOf":
            let keyword = chance(0.5, &rng) ? "anyOf" : "oneOf"
            if satisfiable && keyword == "oneOf" {
                // Branches of different types, so exactly one holds.
                let types = ["string", "integer", "boolean", "object"].shuffled(using: &rng).prefix(2)
                schema = [keyword: .array(types.map { .object(["type": .string($0)]) })]
            } else {
                schema = [keyword: .array((0..<Int.random(in: 1...3, using: &rng)).map { _ in self.schema(depth: depth - 1, using: &rng) })]
            }
        case "not": schema = ["not": self.schema(depth: depth - 1, using: &rng)]
        case "if":
            schema = ["if": self.schema(depth: depth - 1, using: &rng), "then": self.schema(depth: depth - 1, using: &rng)]
            if chance(0.5, &rng) { schema["else"] = self.schema(depth: depth - 1, using: &rng) }
        default: schema = [:]
        }
        // OpenAPI 3.0's null: nullable beside a type.
        if dialect == .openAPI30, schema["type"] != nil, chance(0.2, &rng) { schema["nullable"] = .bool(true) }
        return .object(schema)
    }

    private func stringSchema<R: RandomNumberGenerator>(_ rng: inout R) -> [String: JSONValue] {
        var schema: [String: JSONValue] = ["type": .string("string")]
        let choice = Int.random(in: 0..<4, using: &rng)
        // Satisfiable schemas take one of lengths, pattern or format, so they never contradict each other.
        if choice == 0 || (!satisfiable && chance(0.3, &rng)) {
            let minimum = Int.random(in: 0...3, using: &rng)
            if chance(0.7, &rng) { schema["minLength"] = .integer(Int64(minimum)) }
            if chance(0.7, &rng) { schema["maxLength"] = .integer(Int64(minimum + Int.random(in: 0...3, using: &rng))) }
        }
        if choice == 1 || (!satisfiable && chance(0.3, &rng)) { schema["pattern"] = .string(pick(Self.patterns, &rng)) }
        if choice == 2 || (!satisfiable && chance(0.2, &rng)) { schema["format"] = .string(pick(Self.stringFormats, &rng)) }
        return schema
    }

    private func numberSchema<R: RandomNumberGenerator>(integer: Bool, _ rng: inout R) -> [String: JSONValue] {
        var schema: [String: JSONValue] = ["type": .string(integer ? "integer" : "number")]
        let step: JSONValue = integer ? pick([.integer(2), .integer(3)], &rng) : pick([.double(0.5), .double(0.25), .integer(2)], &rng)
        let stepValue = SchemaNumber(step)!.doubleValue
        let usesStep = chance(0.3, &rng)
        if usesStep { schema["multipleOf"] = step }
        // Bounds are multiples of the step, two steps apart at least, so a satisfiable schema stays so.
        let unit = usesStep ? stepValue : (integer ? 1 : 0.5)
        let low = Double(Int.random(in: -4...4, using: &rng)) * unit
        let high = low + Double(Int.random(in: 2...6, using: &rng)) * unit
        let exclusive = chance(0.4, &rng)
        let lowValue = Self.number(low), highValue = Self.number(high)
        if chance(0.5, &rng) {
            if dialect == .openAPI30 {
                schema["minimum"] = lowValue
                if exclusive { schema["exclusiveMinimum"] = .bool(true) }
            } else {
                schema[exclusive ? "exclusiveMinimum" : "minimum"] = lowValue
            }
        }
        if chance(0.5, &rng) {
            let exclusiveHigh = chance(0.4, &rng)
            if dialect == .openAPI30 {
                schema["maximum"] = highValue
                if exclusiveHigh { schema["exclusiveMaximum"] = .bool(true) }
            } else {
                schema[exclusiveHigh ? "exclusiveMaximum" : "maximum"] = highValue
            }
        }
        if integer && chance(0.15, &rng) { schema["format"] = .string(pick(["int32", "int64"], &rng)) }
        return schema
    }

    private func arraySchema<R: RandomNumberGenerator>(depth: Int, _ rng: inout R) -> [String: JSONValue] {
        var schema: [String: JSONValue] = [:]
        if satisfiable || chance(0.8, &rng) { schema["type"] = .string("array") }
        var itemSchema = self.schema(depth: depth - 1, using: &rng)
        let unique = chance(0.3, &rng)
        if unique {
            schema["uniqueItems"] = .bool(true)
            // Unique elements need items with enough distinct values.
            if satisfiable {
                itemSchema = pick([.object(["type": .string("string"), "minLength": .integer(1)]),
                                   .object(["type": .string("integer"), "minimum": .integer(0)]),
                                   .object(["type": .string("string"), "format": .string("uuid")])], &rng)
            }
        }
        if dialect == .draft2020_12 && !(satisfiable && unique) && chance(0.3, &rng) {
            schema["prefixItems"] = .array((0..<Int.random(in: 1...2, using: &rng)).map { _ in self.schema(depth: depth - 1, using: &rng) })
            if !satisfiable && chance(0.4, &rng) { itemSchema = .bool(false) }
        }
        if chance(0.8, &rng) { schema["items"] = itemSchema }
        let minimum = Int.random(in: 0...2, using: &rng)
        if chance(0.4, &rng) { schema["minItems"] = .integer(Int64(minimum)) }
        if chance(0.4, &rng) { schema["maxItems"] = .integer(Int64(minimum + Int.random(in: 0...2, using: &rng))) }
        if dialect == .draft2020_12 && !satisfiable && chance(0.2, &rng) {
            schema["contains"] = self.schema(depth: depth - 1, using: &rng)
            if chance(0.5, &rng) { schema["minContains"] = .integer(Int64.random(in: 0...2, using: &rng)) }
            if chance(0.3, &rng) { schema["maxContains"] = .integer(Int64.random(in: 1...2, using: &rng)) }
        }
        return schema
    }

    private func objectSchema<R: RandomNumberGenerator>(depth: Int, _ rng: inout R) -> [String: JSONValue] {
        var schema: [String: JSONValue] = [:]
        if satisfiable || chance(0.8, &rng) { schema["type"] = .string("object") }
        let declared = Self.names.filter { _ in chance(0.5, &rng) }
        schema["properties"] = .object(Dictionary(uniqueKeysWithValues: declared.map { ($0, self.schema(depth: depth - 1, using: &rng)) }))
        let requirable = satisfiable ? declared : Self.names
        let required = requirable.filter { _ in chance(0.4, &rng) }
        if !required.isEmpty { schema["required"] = .array(required.map(JSONValue.string)) }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: schema["additionalProperties"] = .bool(false)
        case 1: schema["additionalProperties"] = self.schema(depth: depth - 1, using: &rng)
        default: break
        }
        if chance(0.2, &rng) {
            // Satisfiable: a pattern no declared name matches, so no property must satisfy two schemas.
            schema["patternProperties"] = .object([satisfiable ? "^y-" : "^x-": self.schema(depth: depth - 1, using: &rng)])
        }
        if chance(0.2, &rng) {
            let minimum = Int.random(in: 0...2, using: &rng)
            // Satisfiable: no more than the declared properties can give when others are refused.
            let cap = schema["additionalProperties"] == .bool(false) ? declared.count : 4
            schema["minProperties"] = .integer(Int64(satisfiable ? min(minimum, cap) : minimum))
            schema["maxProperties"] = .integer(Int64(max(minimum, required.count) + Int.random(in: 0...2, using: &rng)))
        }
        if dialect == .draft2020_12 && !satisfiable && chance(0.15, &rng) {
            schema["propertyNames"] = .object(["maxLength": .integer(Int64.random(in: 1...3, using: &rng))])
        }
        if dialect == .draft2020_12 && chance(0.15, &rng) {
            schema["dependentRequired"] = .object(["a": .array([.string("b")])])
            if satisfiable && !declared.contains("b") && schema["additionalProperties"] == .bool(false) {
                schema["dependentRequired"] = nil
            } else if satisfiable, schema["maxProperties"] != nil {
                // Room for "a", what it requires, and the required ones.
                schema["maxProperties"] = .integer(Int64(required.count + 2))
            }
        }
        return schema
    }

    private static func number(_ value: Double) -> JSONValue {
        Int64(exactly: value).map(JSONValue.integer) ?? .double(value)
    }

    // MARK: Values

    /// A value for `schema`: mostly of its shape, near its bounds, with a few wild ones.
    func value<R: RandomNumberGenerator>(near schema: JSONValue, in document: JSONValue, depth: Int, using rng: inout R) -> JSONValue {
        if depth > 6 || chance(0.1, &rng) { return wildValue(depth: depth, &rng) }
        guard case .object(let members) = schema else { return wildValue(depth: depth, &rng) }
        if case .string(let reference)? = members["$ref"], let pointer = JSONPointer(reference),
           let target = pointer.resolve(in: document), chance(0.8, &rng) {
            return value(near: target, in: document, depth: depth + 1, using: &rng)
        }
        if case .array(let values)? = members["enum"], !values.isEmpty, chance(0.7, &rng) { return pick(values, &rng) }
        if let constant = members["const"], chance(0.7, &rng) { return constant }
        for keyword in ["allOf", "anyOf", "oneOf"] {
            if case .array(let branches)? = members[keyword], chance(0.6, &rng) {
                return value(near: pick(branches, &rng), in: document, depth: depth + 1, using: &rng)
            }
        }
        if members["nullable"] == .bool(true), chance(0.2, &rng) { return .null }
        var type = members["type"]
        if case .array(let types)? = type { type = types.isEmpty ? nil : pick(types, &rng) }
        let typeName: String
        if case .string(let name)? = type {
            typeName = name
        } else if members["properties"] != nil {
            typeName = "object"
        } else if members["items"] != nil || members["prefixItems"] != nil {
            typeName = "array"
        } else {
            return wildValue(depth: depth, &rng)
        }
        switch typeName {
        case "string": return stringValue(members, &rng)
        case "integer", "number": return numberValue(members, integer: typeName == "integer", &rng)
        case "boolean": return .bool(Bool.random(using: &rng))
        case "null": return .null
        case "array": return arrayValue(members, document: document, depth: depth, &rng)
        case "object": return objectValue(members, document: document, depth: depth, &rng)
        default: return wildValue(depth: depth, &rng)
        }
    }

    private func stringValue<R: RandomNumberGenerator>(_ schema: [String: JSONValue], _ rng: inout R) -> JSONValue {
        if case .string(let format)? = schema["format"], let pool = Self.formatted[format], chance(0.8, &rng) {
            return .string(pick(pool, &rng))
        }
        if case .integer(let length)? = schema["minLength"] ?? schema["maxLength"], chance(0.5, &rng) {
            // Near the bound, in characters of one, and of two UTF-16 units (lengths count code points).
            let count = max(0, Int(length) + Int.random(in: -1...1, using: &rng))
            return .string(String(repeating: pick(["z", "é", "𝄞"], &rng), count: count))
        }
        return .string(pick(Self.strings, &rng))
    }

    private func numberValue<R: RandomNumberGenerator>(_ schema: [String: JSONValue], integer: Bool, _ rng: inout R) -> JSONValue {
        let bounds = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].compactMap { schema[$0].flatMap(SchemaNumber.init) }
        if let bound = bounds.first, chance(0.7, &rng) {
            let offsets: [Double] = integer ? [-1, 0, 1] : [-0.5, 0, 0.25, 0.5]
            return Self.number(bound.doubleValue + pick(offsets, &rng))
        }
        let pool: [JSONValue] = integer
            ? [.integer(0), .integer(1), .integer(-1), .integer(2), .integer(3), .integer(6), .integer(7), .integer(3_000_000_000),
               .integer(-2_147_483_649), .integer(2_147_483_647), .double(4.0)]
            : [.integer(0), .double(0.5), .double(-2.5), .double(0.25), .integer(3), .double(7.75), .integer(10)]
        return pick(pool, &rng)
    }

    private func arrayValue<R: RandomNumberGenerator>(_ schema: [String: JSONValue], document: JSONValue, depth: Int,
                                                      _ rng: inout R) -> JSONValue {
        var prefix: [JSONValue] = []
        if case .array(let schemas)? = schema["prefixItems"] { prefix = schemas }
        let items = schema["items"] ?? .object([:])
        let count = Int.random(in: 0...3, using: &rng)
        var elements = (0..<count).map { index in
            value(near: index < prefix.count ? prefix[index] : items, in: document, depth: depth + 1, using: &rng)
        }
        if let first = elements.first, chance(0.2, &rng) { elements.append(first) } // for uniqueItems
        return .array(elements)
    }

    private func objectValue<R: RandomNumberGenerator>(_ schema: [String: JSONValue], document: JSONValue, depth: Int,
                                                       _ rng: inout R) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if case .object(let properties)? = schema["properties"] {
            for name in properties.keys.sorted() where chance(0.8, &rng) {
                members[name] = value(near: properties[name]!, in: document, depth: depth + 1, using: &rng)
            }
        }
        if case .array(let required)? = schema["required"] {
            for case .string(let name) in required where members[name] == nil && chance(0.8, &rng) {
                members[name] = wildValue(depth: depth + 1, &rng)
            }
        }
        if chance(schema["patternProperties"] == nil ? 0.3 : 0.7, &rng) {
            let name = pick(["x-extra", "zz", "b", "x-extra"], &rng)
            let additional = schema["additionalProperties"] ?? schema["patternProperties"]?.objectMember("^x-") ?? .object([:])
            members[name] = value(near: additional, in: document, depth: depth + 1, using: &rng)
        }
        return .object(members)
    }

    /// Any value: scalars of every type, small containers.
    private func wildValue<R: RandomNumberGenerator>(depth: Int, _ rng: inout R) -> JSONValue {
        let scalars: [JSONValue] = [.null, .bool(true), .bool(false), .integer(0), .integer(2), .integer(-7), .double(2.5),
                                    .string(pick(Self.strings, &rng))]
        if depth > 4 || chance(0.7, &rng) { return pick(scalars, &rng) }
        return chance(0.5, &rng)
            ? .array((0..<Int.random(in: 0...2, using: &rng)).map { _ in wildValue(depth: depth + 1, &rng) })
            : .object(["a": wildValue(depth: depth + 1, &rng)])
    }
}
