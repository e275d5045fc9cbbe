import Foundation
import PropertyBased
import Testing
@testable import TapedeckCore
import TapedeckTestSupport

@Suite("Sample values from schemas")
struct SchemaSampleTests {
    func schema(_ text: String, _ dialect: JSONSchema.Dialect = .draft2020_12) throws -> JSONSchema {
        try JSONSchema(JSONValue(schemaTestText: text), dialect: dialect)
    }

    /// The sample for `text` with `seed`, checked against the schema.
    func sample(_ text: String, _ dialect: JSONSchema.Dialect = .draft2020_12, seed: UInt64 = 0,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        let compiled = try schema(text, dialect)
        let value = SchemaSample(seed: seed).value(for: compiled)
        #expect(compiled.validate(value).isEmpty, "\(value.summary): \(compiled.validate(value))", sourceLocation: sourceLocation)
        return value
    }

    @Test("the same schema and seed give the same value; other seeds vary it")
    func deterministic() throws {
        let rich = #"""
            {"type": "object", "required": ["id", "name", "created", "tags", "score"], "properties": {
              "id": {"type": "string", "format": "uuid"}, "name": {"type": "string"},
              "created": {"type": "string", "format": "date-time"}, "score": {"type": "number", "minimum": 0},
              "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]{2,5}$"}, "minItems": 2, "uniqueItems": true}}}
            """#
        let first = try sample(rich, seed: 42)
        #expect(try sample(rich, seed: 42) == first)
        #expect(try sample(rich, seed: 0) == sample(rich, seed: 0))
        let seeds: [UInt64] = [1, 2, 3, 4, 5]
        #expect(Set(try seeds.map { try sample(rich, seed: $0) }).count > 1)
    }

    @Test("the schema's own values come first: example, examples, default, const, enum; invalid ones are skipped")
    func offeredValues() throws {
        #expect(try sample(#"{"type": "string", "example": "Ada"}"#, .openAPI30) == .string("Ada"))
        #expect(try sample(#"{"type": "integer", "examples": [7, 8]}"#) == .integer(7))
        #expect(try sample(#"{"type": "integer", "default": 3}"#) == .integer(3))
        #expect(try sample(#"{"const": {"a": [1]}}"#) == .object(["a": .array([.integer(1)])]))
        #expect(try sample(#"{"type": "string", "enum": [1, "b", "c"]}"#) == .string("b"))
        #expect(try sample(#"{"type": "integer", "minimum": 10, "example": 3}"#, .openAPI30) != .integer(3))
        // A property's example is used where the property is made.
        #expect(try sample(#"{"type": "object", "required": ["n"], "properties": {"n": {"type": "string", "example": "Ada"}}}"#)
                == .object(["n": .string("Ada")]))
    }

    @Test("objects: required and declared properties near the top, only required ones deeper")
    func objects() throws {
        let value = try sample(#"{"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}}}"#)
        #expect(value.objectMember("a") != .null && value.objectMember("b") != .null)
        let few = try sample(#"{"type": "object", "minProperties": 3, "additionalProperties": {"type": "integer"}}"#)
        guard case .object(let members) = few else { Issue.record("not an object: \(few)"); return }
        #expect(members.count == 3)
        _ = try sample(#"{"type": "object", "required": ["a"], "properties": {"a": {}}, "additionalProperties": false, "maxProperties": 1}"#)
    }

    @Test("recursive schemas stay small, and an endless requirement still ends")
    func recursion() throws {
        let tree = ##"""
            {"$defs": {"node": {"type": "object", "required": ["value"], "properties": {
              "value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
             "$ref": "#/$defs/node"}
            """##
        let value = try sample(tree)
        #expect(value.compactData.count < 400, "\(String(decoding: value.compactData, as: UTF8.self))")
        // Each node requires another: no finite value exists; the sample gives up in bounded time.
        let endless = try schema(##"{"$defs": {"a": {"type": "object", "required": ["next"], "properties": {"next": {"$ref": "#/$defs/a"}}}}, "$ref": "#/$defs/a"}"##)
        let attempt = SchemaSample().value(for: endless)
        #expect(!endless.isValid(attempt))
    }

    @Test("strings: lengths, formats and simple patterns are met")
    func strings() throws {
        #expect(try sample(#"{"type": "string", "minLength": 12}"#).stringValue?.count == 12)
        #expect(try sample(#"{"type": "string", "maxLength": 3}"#).stringValue?.count == 3)
        for format in ["date-time", "date", "time", "email", "uuid", "uri", "ipv4", "ipv6"] {
            _ = try sample(#"{"type": "string", "format": "\#(format)"}"#)
        }
        for pattern in [#"^[A-Z]{3}-\\d{4}$"#, #"^(foo|bar)+baz?$"#, #"^\\w+@\\w+\\.com$"#, #"^[^0-9]{6,9}$"#, #"v\\d+\\.\\d+"#, #"^(?:ab){2,}$"#] {
            _ = try sample(#"{"type": "string", "pattern": "\#(pattern)", "minLength": 6}"#)
        }
    }

    @Test("a pattern beyond the sampler gives a best effort, never a crash")
    func unsupportedPattern() throws {
        let lookahead = try schema(#"{"type": "string", "pattern": "^(?=.*[0-9])[a-z0-9]{8,}$"}"#)
        #expect(SchemaSample().value(for: lookahead).stringValue != nil)
        // Plain strings are tried: one of them may fit.
        _ = try sample(#"{"type": "string", "pattern": "^(?i)EXAMPLE$"}"#)
    }

    @Test("numbers: bounds, exclusive bounds and multipleOf together")
    func numbers() throws {
        #expect(try sample(#"{"type": "integer", "minimum": 10, "exclusiveMaximum": 13, "multipleOf": 4}"#) == .integer(12))
        #expect(try sample(#"{"type": "integer", "minimum": 10, "exclusiveMaximum": true, "maximum": 12, "multipleOf": 11}"#, .openAPI30)
                == .integer(11))
        #expect(try sample(#"{"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}"#) == .double(0.5))
        _ = try sample(#"{"type": "number", "minimum": 0.1, "maximum": 0.2, "multipleOf": 0.05}"#)
        _ = try sample(#"{"type": "integer", "format": "int32", "minimum": 2147483000}"#)
        _ = try sample(#"{"type": "integer", "maximum": -9223372036854775800}"#)
        _ = try sample(#"{"type": "integer", "multipleOf": 0.5, "minimum": 1.5}"#)
    }

    @Test("allOf is merged, oneOf and anyOf take a branch that holds, a discriminator names its branch")
    func combinations() throws {
        let merged = try sample(#"""
            {"allOf": [{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
                       {"required": ["b"], "properties": {"b": {"type": "integer", "minimum": 5}}}]}
            """#)
        #expect(merged.objectMember("a").stringValue != nil && merged.objectMember("b") != .null)
        #expect(try sample(#"{"oneOf": [{"type": "integer"}, {"type": "string"}]}"#).schemaTypeName == "integer")
        // Every integer made for the first branch also holds for the second: another value is found.
        #expect(try sample(#"{"oneOf": [{"type": "integer"}, {"minimum": 0}, {"type": "string"}]}"#).schemaTypeName != "integer")
        let document = JSONValue(schemaTestText: """
            {"components": {"schemas": {
              "Pet": {"oneOf": [{"$ref": "#/components/schemas/Dog"}, {"$ref": "#/components/schemas/Cat"}],
                      "discriminator": {"propertyName": "kind"}},
              "Dog": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}, "bark": {"type": "boolean"}}},
              "Cat": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}}}}}}
            """)
        let pet = try JSONSchema(document: document, pointer: "#/components/schemas/Pet", dialect: .openAPI30)
        let value = SchemaSample().value(for: pet)
        #expect(value.objectMember("kind") == .string("Dog"))
        #expect(pet.isValid(value))
    }

    @Test("arrays: counts, unique items, tuples")
    func arrays() throws {
        let unique = try sample(#"{"type": "array", "minItems": 4, "uniqueItems": true, "items": {"type": "string", "format": "email"}}"#)
        #expect(unique.arrayCount == 4)
        _ = try sample(#"{"type": "array", "minItems": 3, "uniqueItems": true, "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}"#)
        _ = try sample(#"{"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false, "minItems": 2}"#)
        #expect(try sample(#"{"type": "array", "maxItems": 0}"#) == .array([]))
    }

    @Test("every sample of a generated satisfiable schema is valid, for Tapedeck and for jsonschema", .requires(.jsonschema))
    func samplesAreValid() async throws {
        let generated = Generator<[(SchemaCase, UInt64)], [[(SchemaCase, UInt64)]]>(
            run: { rng in
                var documents: [(SchemaCase, UInt64)] = []
                for dialect in JSONSchema.Dialect.allCases {
                    var maker = SchemaCaseMaker(dialect: dialect, satisfiable: true)
                    for _ in 0..<200 {
                        let document = maker.makeDocument(using: &rng)
                        documents.append((SchemaCase(dialect: dialect, schema: document, instance: .null), UInt64.random(in: 0...5, using: &rng)))
                    }
                }
                return documents
            },
            shrink: { _ in [] }
        )
        await propertyCheck(count: 1, input: generated) { documents in
            var judged: [SchemaCase] = []
            for (document, seed) in documents {
                let compiled = try JSONSchema(document.schema, dialect: document.dialect)
                var sampled = document
                sampled.instance = SchemaSample(seed: seed).value(for: compiled)
                let violations = compiled.validate(sampled.instance)
                #expect(violations.isEmpty, "seed \(seed): \(violations)\n\(sampled)")
                judged.append(sampled)
            }
            let verdicts = try SchemaJudge.verdicts(judged)
            for (sampled, verdict) in zip(judged, verdicts) {
                #expect(verdict == "valid", "\(sampled)")
            }
        }
    }
}

extension JSONValue {
    /// The text of a string value.
    fileprivate var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The element count of an array value.
    fileprivate var arrayCount: Int? {
        guard case .array(let elements) = self else { return nil }
        return elements.count
    }
}
