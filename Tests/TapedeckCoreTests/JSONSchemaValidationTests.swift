import Foundation
import Testing
@testable import TapedeckCore

@Suite("JSON Schema validation")
struct JSONSchemaValidationTests {
    /// A JSON value from its text; fails the test when the text is not JSON.
    func json(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue {
        JSONValue(schemaTestText: text, sourceLocation: sourceLocation)
    }

    /// A schema compiled from its text.
    func schema(_ text: String, _ dialect: JSONSchema.Dialect = .draft2020_12, assertsFormats: Bool = true) throws -> JSONSchema {
        try JSONSchema(json(text), dialect: dialect, assertsFormats: assertsFormats)
    }

    /// What is wrong with `instance` against `schemaText`, one `PATH: message` line each.
    func problems(_ schemaText: String, _ instance: String, _ dialect: JSONSchema.Dialect = .draft2020_12) throws -> [String] {
        try schema(schemaText, dialect).validate(json(instance)).map(\.description)
    }

    func accepts(_ schemaText: String, _ instance: String, _ dialect: JSONSchema.Dialect = .draft2020_12) throws -> Bool {
        try schema(schemaText, dialect).isValid(json(instance))
    }

    // MARK: Types

    @Test("type: a mismatch names both types, and nothing else is said about that value")
    func type() throws {
        #expect(try problems(#"{"type": "integer", "minimum": 3}"#, #""7""#) == ["$: expected integer, got string"])
        #expect(try problems(#"{"properties": {"user": {"properties": {"age": {"type": "integer"}}}}}"#,
                             #"{"user": {"age": "x"}}"#) == ["$.user.age: expected integer, got string"])
        #expect(try problems(#"{"type": ["string", "integer", "null"]}"#, "1.5") == ["$: expected string, integer or null, got number"])
        #expect(try problems(#"{"type": "object"}"#, "[]") == ["$: expected object, got array"])
        #expect(try problems(#"{"type": "boolean"}"#, "null") == ["$: expected boolean, got null"])
    }

    @Test("integer admits whole numbers written with a fraction; number admits integers")
    func integerAndNumber() throws {
        #expect(try accepts(#"{"type": "integer"}"#, "1.0"))
        #expect(try accepts(#"{"type": "integer"}"#, "1e3"))
        #expect(try !accepts(#"{"type": "integer"}"#, "1.5"))
        #expect(try accepts(#"{"type": "number"}"#, "7"))
        #expect(try !accepts(#"{"type": "integer"}"#, "true"))
        #expect(try !accepts(#"{"type": "number"}"#, "false"))
    }

    @Test("OpenAPI 3.0: nullable adds null to an explicit type, and only there")
    func nullable() throws {
        #expect(try accepts(#"{"type": "string", "nullable": true}"#, "null", .openAPI30))
        #expect(try problems(#"{"type": "string"}"#, "null", .openAPI30) == ["$: expected string, got null"])
        #expect(try problems(#"{"type": "string", "nullable": true}"#, "1", .openAPI30) == ["$: expected string or null, got integer"])
        // Not in an enum that does not list null (OpenAPI 3.0.4).
        #expect(try !accepts(#"{"type": "string", "nullable": true, "enum": ["a"]}"#, "null", .openAPI30))
        // 2020-12 ignores it, and says so.
        let ignored = try schema(#"{"type": "string", "nullable": true}"#)
        #expect(!ignored.isValid(.null))
        #expect(ignored.warnings.map(\.message) == [#"nullable is OpenAPI 3.0; OpenAPI 3.1 writes type: [..., "null"]; ignored"#])
    }

    // MARK: Values

    @Test("enum and const compare by value and say what was expected")
    func enumAndConst() throws {
        #expect(try problems(#"{"properties": {"color": {"enum": ["a", "b"]}}}"#, #"{"color": "x"}"#)
                == [#"$.color: "x" is not one of ["a", "b"]"#])
        #expect(try accepts(#"{"enum": [1, {"a": [true]}]}"#, #"{"a": [true]}"#))
        #expect(try accepts(#"{"enum": [1]}"#, "1.0"))
        #expect(try !accepts(#"{"enum": [1]}"#, "true"))
        #expect(try problems(#"{"const": "on"}"#, #""off""#) == [#"$: expected "on", got "off""#])
        #expect(try problems(#"{"enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}"#, "0")
                == ["$: 0 is not one of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …]"])
    }

    // MARK: Objects

    @Test("required and properties: each missing property named, members checked by name")
    func requiredAndProperties() throws {
        let user = #"{"type": "object", "required": ["id", "name"], "properties": {"id": {"type": "integer"}}}"#
        #expect(try problems(user, "{}") == [#"$: required property "id" missing"#, #"$: required property "name" missing"#])
        #expect(try problems(user, #"{"id": "7", "name": "x"}"#) == ["$.id: expected integer, got string"])
        #expect(try accepts(user, #"{"id": 7, "name": "x", "other": []}"#))
    }

    @Test("additionalProperties: false names the stranger, a schema checks it; patternProperties count as declared")
    func additionalProperties() throws {
        let closed = #"{"properties": {"a": {}}, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}"#
        #expect(try problems(closed, #"{"a": 1, "x-b": "ok", "extra": 2}"#) == [#"$: property "extra" is not allowed"#])
        #expect(try problems(closed, #"{"x-b": 3, "odd key": 1}"#)
                == [#"$: property "odd key" is not allowed"#, "$.x-b: expected string, got integer"])
        #expect(try problems(#"{"additionalProperties": {"type": "integer"}}"#, #"{"n": 1, "s": "x"}"#)
                == ["$.s: expected integer, got string"])
    }

    @Test("minProperties, maxProperties, propertyNames, dependentRequired")
    func objectCounts() throws {
        #expect(try problems(#"{"minProperties": 2}"#, #"{"a": 1}"#) == ["$: expected at least 2 properties, got 1"])
        #expect(try problems(#"{"maxProperties": 1}"#, #"{"a": 1, "b": 2}"#) == ["$: expected at most 1 property, got 2"])
        #expect(try problems(#"{"propertyNames": {"pattern": "^[a-z]+$"}}"#, #"{"ok": 1, "Bad": 2}"#)
                == [#"$: "Bad" does not match the pattern ^[a-z]+$"#])
        #expect(try problems(#"{"dependentRequired": {"card": ["address"]}}"#, #"{"card": 1}"#)
                == [#"$: property "card" requires "address", which is missing"#])
        #expect(try accepts(#"{"dependentRequired": {"card": ["address"]}}"#, #"{"name": 1}"#))
    }

    // MARK: Arrays

    @Test("items (one schema) checks every element, at its index")
    func items() throws {
        #expect(try problems(#"{"items": {"type": "integer"}}"#, #"[1, 2, "3"]"#, .openAPI30) == ["$[2]: expected integer, got string"])
        #expect(try problems(#"{"properties": {"items": {"items": {"type": "string"}}}}"#, #"{"items": ["a", "b", 3]}"#)
                == ["$.items[2]: expected string, got integer"])
    }

    @Test("prefixItems checks by position; items: false forbids more")
    func prefixItems() throws {
        let pair = #"{"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}"#
        #expect(try accepts(pair, #"["a", 1]"#))
        #expect(try accepts(pair, #"["a"]"#))
        #expect(try problems(pair, #"[1, 1, null]"#) == ["$[0]: expected string, got integer", "$[2]: no value is allowed here"])
    }

    @Test("minItems, maxItems, uniqueItems, contains")
    func arrayCounts() throws {
        #expect(try problems(#"{"minItems": 2}"#, "[1]") == ["$: expected at least 2 items, got 1"])
        #expect(try problems(#"{"maxItems": 1}"#, "[1, 2]") == ["$: expected at most 1 item, got 2"])
        #expect(try problems(#"{"uniqueItems": true}"#, #"[1, {"a": 2}, 3, {"a": 2.0}]"#)
                == ["$: items [1] and [3] are equal; items must be unique"])
        #expect(try accepts(#"{"uniqueItems": true}"#, "[1, true, 0, false]"))
        #expect(try problems(#"{"contains": {"type": "string"}}"#, "[1, 2]") == [#"$: no item matches the "contains" schema"#])
        #expect(try problems(#"{"contains": {"type": "string"}, "minContains": 2, "maxContains": 2}"#, #"["a", 1]"#)
                == [#"$: expected at least 2 items matching "contains", got 1"#])
        #expect(try !accepts(#"{"contains": {"type": "string"}, "maxContains": 1}"#, #"["a", "b"]"#))
    }

    // MARK: Strings

    @Test("lengths count Unicode code points, as jsonschema does")
    func lengths() throws {
        #expect(try accepts(#"{"maxLength": 1}"#, #""\u00e9""#))
        #expect(try problems(#"{"maxLength": 1}"#, #""e\u0301""#) == ["$: expected at most 1 character, got 2"])
        #expect(try accepts(#"{"minLength": 2, "maxLength": 2}"#, #""👍🏽""#))
        #expect(try problems(#"{"minLength": 3}"#, #""ab""#) == ["$: expected at least 3 characters, got 2"])
    }

    @Test("pattern is an unanchored search, compiled once")
    func pattern() throws {
        #expect(try accepts(#"{"pattern": "b"}"#, #""abc""#))
        #expect(try problems(#"{"pattern": "^[0-9]+$"}"#, #""12a""#) == [#"$: "12a" does not match the pattern ^[0-9]+$"#])
        #expect(try accepts(#"{"pattern": "^\\d{3}-\\d{4}$"}"#, #""555-1234""#))
        #expect(try accepts(#"{"pattern": "^a"}"#, "12"), "a pattern says nothing about a value that is not a string")
        let long = String(repeating: "x", count: 60)
        #expect(try problems(#"{"pattern": "^y"}"#, "\"\(long)\"")
                == ["$: \"\(String(repeating: "x", count: 37))…\" does not match the pattern ^y"])
    }

    // MARK: Numbers

    @Test("minimum and maximum, and both dialects' exclusive bounds")
    func bounds() throws {
        #expect(try problems(#"{"minimum": 10}"#, "5") == ["$: 5 is less than the minimum 10"])
        #expect(try problems(#"{"maximum": 10}"#, "10.5") == ["$: 10.5 is greater than the maximum 10"])
        #expect(try accepts(#"{"minimum": 10}"#, "10"))
        #expect(try problems(#"{"exclusiveMinimum": 10}"#, "10") == ["$: 10 is not greater than 10"])
        #expect(try problems(#"{"exclusiveMaximum": 10}"#, "10.0") == ["$: 10 is not less than 10"])
        // OpenAPI 3.0's booleans make the plain bound exclusive.
        #expect(try problems(#"{"minimum": 10, "exclusiveMinimum": true}"#, "10", .openAPI30) == ["$: 10 is not greater than 10"])
        #expect(try accepts(#"{"minimum": 10, "exclusiveMinimum": false}"#, "10", .openAPI30))
        #expect(try problems(#"{"maximum": 3, "exclusiveMaximum": true}"#, "3", .openAPI30) == ["$: 3 is not less than 3"])
    }

    @Test("bounds compare exactly, even beyond a double's precision, and huge numbers do not trap")
    func exactNumbers() throws {
        #expect(try !accepts(#"{"maximum": 9007199254740992}"#, "9007199254740993"))
        #expect(try accepts(#"{"minimum": -9223372036854775808, "maximum": 9223372036854775807}"#, "9223372036854775807"))
        #expect(try !accepts(#"{"maximum": 9223372036854775807}"#, "1e300"))
        #expect(try accepts(#"{"minimum": 1e300}"#, "1.5e300"))
        #expect(try accepts(#"{"multipleOf": 0.5}"#, "1e300"))
        #expect(try !accepts(#"{"multipleOf": 1e-300}"#, "1e300"), "the quotient overflows; the remainder decides, as in jsonschema")
        #expect(try accepts(#"{"type": "integer", "multipleOf": 3}"#, "-9223372036854775806"))
        #expect(try !accepts(#"{"type": "integer", "multipleOf": 3}"#, "-9223372036854775807"))
        #expect(throws: SchemaError(location: "#/multipleOf", reason: .invalidKeyword("multipleOf", expected: "a number above 0"))) {
            try schema(#"{"multipleOf": -1e-5}"#)
        }
    }

    @Test("multipleOf, exact for integers and with jsonschema's float rule otherwise")
    func multipleOf() throws {
        #expect(try problems(#"{"multipleOf": 2}"#, "7") == ["$: 7 is not a multiple of 2"])
        #expect(try accepts(#"{"multipleOf": 2.5}"#, "7.5"))
        #expect(try accepts(#"{"multipleOf": 0.5}"#, "3"))
        #expect(try !accepts(#"{"multipleOf": 0.25}"#, "0.3"))
    }

    // MARK: Formats

    @Test("formats: valid and invalid values of each checked format", arguments: [
        ("date-time", ["2026-11-21T10:00:00Z", "2026-11-21t10:00:00.123+01:00", "2024-02-29T23:59:59-05:30", "2026-11-21T10:00:60Z"],
         ["2026-11-21 10:00:00Z", "2026-11-21T10:00:00", "2023-02-29T10:00:00Z", "2026-13-01T10:00:00Z", "0000-01-01T00:00:00Z", "2026-11-21T24:00:00Z"]),
        ("date", ["2026-11-21", "2000-02-29"], ["2026-11-31", "1900-02-29", "26-11-21", "2026-1-21", "2026-11-21T00:00:00Z"]),
        ("time", ["10:00:00Z", "23:59:59.5+02:00"], ["10:00:00", "10:00Z", "25:00:00Z", "10:00:00+2:00"]),
        ("email", ["a@example.com", "first.last+tag@sub.example.org"], ["plain", "@example.com", "a@", "a b@example.com"]),
        ("uuid", ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"],
         ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g", "{123e4567-e89b-12d3-a456-426614174000}"]),
        ("uri", ["https://example.com/a?b=c#d", "urn:isbn:0451450523", "mailto:a@example.com", "http://[::1]:80/%7E"],
         ["/relative/path", "example.com", "https://exa mple.com", "1http://x", "http://x/%zz"]),
        ("ipv4", ["192.0.2.1", "0.0.0.0", "255.255.255.255"], ["256.0.0.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "a.b.c.d"]),
        ("ipv6", ["::", "::1", "2001:db8::8a2e:370:7334", "1:2:3:4:5:6:7:8", "::ffff:192.0.2.1", "1:2:3:4:5:6:7::"],
         ["1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "::1%eth0", "1::2:3:4:5:6:7:8", ":1::", "::ffff:192.0.2.256"]),
    ])
    func formats(format: String, valid: [String], invalid: [String]) throws {
        let checked = try schema(#"{"format": "\#(format)"}"#)
        for text in valid { #expect(checked.isValid(.string(text)), "\(text) is a valid \(format)") }
        for text in invalid {
            #expect(checked.validate(.string(text)).map(\.description) == ["$: \(JSONValue.string(text).summary) is not a valid \(format)"])
        }
        #expect(checked.isValid(.integer(5)), "a string format says nothing about a number")
        #expect(try schema(#"{"format": "\#(format)"}"#, assertsFormats: false).isValid(.string(invalid[0])))
    }

    @Test("int32 and int64 bound whole numbers; unknown formats are annotations")
    func numberFormats() throws {
        let int32 = try schema(#"{"type": "integer", "format": "int32"}"#, .openAPI30)
        #expect(int32.isValid(.integer(2_147_483_647)))
        #expect(int32.validate(.integer(2_147_483_648)).map(\.description) == ["$: 2147483648 is not a valid int32"])
        #expect(try schema(#"{"format": "int64"}"#).isValid(.integer(.max)))
        #expect(try !schema(#"{"format": "int64"}"#).isValid(.double(1e19)))
        #expect(try schema(#"{"format": "int64"}"#).isValid(.string("12")))
        #expect(try schema(#"{"format": "color-of-the-sky"}"#).isValid(.string("blue")))
    }

    // MARK: Combinations

    @Test("allOf reports every part's violations")
    func allOf() throws {
        #expect(try problems(#"{"allOf": [{"required": ["a"]}, {"properties": {"b": {"type": "string"}}}]}"#, #"{"b": 1}"#)
                == [#"$: required property "a" missing"#, "$.b: expected string, got integer"])
    }

    @Test("anyOf: one match is enough; with none, the one branch of the right type explains")
    func anyOf() throws {
        let either = #"{"anyOf": [{"type": "string"}, {"type": "object", "required": ["id"]}]}"#
        #expect(try accepts(either, #""x""#))
        #expect(try accepts(either, #"{"id": 1}"#))
        #expect(try problems(either, "{}") == [#"$: required property "id" missing"#])
        #expect(try problems(either, "1") == ["$: matches none of the 2 anyOf schemas"])
    }

    @Test("oneOf: exactly one; two matches are named")
    func oneOf() throws {
        let one = #"{"oneOf": [{"type": "integer"}, {"minimum": 2}]}"#
        #expect(try accepts(one, "1"))
        #expect(try accepts(one, "2.5"))
        #expect(try problems(one, "3") == ["$: matches oneOf schemas [0] and [1]; exactly one must match"])
        #expect(try problems(#"{"oneOf": [{"type": "integer"}, {"type": "string"}]}"#, "null")
                == ["$: matches none of the 2 oneOf schemas"])
    }

    @Test("not, and if/then/else")
    func notAndIf() throws {
        #expect(try problems(#"{"not": {"type": "null"}}"#, "null") == [#"$: must not match the "not" schema"#])
        #expect(try accepts(#"{"not": {"type": "null"}}"#, "0"))
        let conditional = #"{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}"#
        #expect(try problems(conditional, #"{"kind": "a"}"#) == [#"$: required property "x" missing"#])
        #expect(try problems(conditional, #"{"kind": "b"}"#) == [#"$: required property "y" missing"#])
    }

    @Test("discriminator picks the branch by the property, by mapping or by schema name; else plain oneOf")
    func discriminator() throws {
        let document = json("""
            {"components": {"schemas": {
              "Pet": {"oneOf": [{"$ref": "#/components/schemas/Dog"}, {"$ref": "#/components/schemas/Cat"}],
                      "discriminator": {"propertyName": "kind", "mapping": {"hound": "#/components/schemas/Dog"}}},
              "Dog": {"type": "object", "required": ["kind", "bark"], "properties": {"kind": {"type": "string"}, "bark": {"type": "boolean"}}},
              "Cat": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}, "lives": {"type": "integer"}}}
            }}}
            """)
        let pet = try JSONSchema(document: document, pointer: "#/components/schemas/Pet", dialect: .openAPI30)
        // Dog's own message, not "matches none": the discriminator chose Dog.
        #expect(pet.validate(json(#"{"kind": "Dog", "lives": 9}"#)).map(\.description) == [#"$: required property "bark" missing"#])
        #expect(pet.validate(json(#"{"kind": "hound", "bark": 1}"#)).map(\.description) == ["$.bark: expected boolean, got integer"])
        #expect(pet.isValid(json(#"{"kind": "Cat", "lives": 9}"#)))
        // Without it, a Dog is also a Cat: plain oneOf refuses the value.
        #expect(pet.validate(json(#"{"kind": "Lizard", "bark": true}"#)).map(\.description)
                == ["$: matches oneOf schemas [0] and [1]; exactly one must match"])
    }

    @Test("boolean schemas: true accepts anything, false nothing")
    func booleanSchemas() throws {
        #expect(try accepts("true", #"{"a": [1]}"#))
        #expect(try problems("false", "1") == ["$: no value is allowed here"])
        #expect(try problems(#"{"properties": {"gone": false}}"#, #"{"gone": null}"#) == ["$.gone: no value is allowed here"])
        let lenient = try schema(#"{"properties": {"a": false}}"#, .openAPI30)
        #expect(lenient.warnings.map(\.message) == ["true and false as schemas are JSON Schema 2020-12 (OpenAPI 3.1); read as such"])
        #expect(try schema(#"{"additionalProperties": false}"#, .openAPI30).warnings.isEmpty)
    }

    @Test("each dialect reads the other's forms too, saying so once")
    func crossDialectForms() throws {
        let numeric = try schema(#"{"exclusiveMinimum": 5, "properties": {"a": {"exclusiveMinimum": 1}}}"#, .openAPI30)
        #expect(!numeric.isValid(.integer(5)))
        #expect(numeric.warnings.map(\.description) == ["schema #: a numeric exclusiveMinimum is JSON Schema 2020-12 (OpenAPI 3.1); read as such"])
        let boolean = try schema(#"{"maximum": 5, "exclusiveMaximum": true}"#)
        #expect(!boolean.isValid(.integer(5)))
        #expect(boolean.warnings.map(\.message) == ["a boolean exclusiveMaximum is OpenAPI 3.0; read as such"])
        let newer = try schema(#"{"type": ["string", "null"], "const": "a"}"#, .openAPI30)
        #expect(newer.isValid(.string("a")) && !newer.isValid(.string("b")) && !newer.isValid(.null))
        #expect(newer.warnings.map(\.message) == ["a list of types is JSON Schema 2020-12 (OpenAPI 3.1); read as such",
                                                  "const is JSON Schema 2020-12 (OpenAPI 3.1); read as such"])
        let tuple = try schema(#"{"items": [{"type": "string"}]}"#)
        #expect(!tuple.isValid(json("[1]")) && tuple.isValid(json(#"["a", 1]"#)))
        #expect(tuple.warnings.map(\.message) == ["items as a list is the draft 4 tuple form; read as prefixItems"])
    }

    // MARK: References

    @Test("$ref to components/schemas and $defs; a recursive tree validates at 64 levels")
    func references() throws {
        let tree = json("""
            {"$defs": {"node": {"type": "object", "required": ["value"],
              "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
             "$ref": "#/$defs/node"}
            """)
        let compiled = try JSONSchema(tree, dialect: .draft2020_12)
        var deep: JSONValue = .object(["value": .integer(64)])
        for level in (0..<63).reversed() { deep = .object(["value": .integer(Int64(level)), "children": .array([deep])]) }
        #expect(compiled.isValid(deep))
        var broken = JSONValue.object(["value": .string("leaf")])
        for _ in 0..<3 { broken = .object(["value": .integer(0), "children": .array([.integer(1), broken])]) }
        #expect(compiled.validate(broken).map(\.description) == [
            "$.children[0]: expected object, got integer",
            "$.children[1].children[0]: expected object, got integer",
            "$.children[1].children[1].children[0]: expected object, got integer",
            "$.children[1].children[1].children[1].value: expected integer, got string",
        ])
        let escaped = json(##"{"$ref": "#/$defs/a~1b%20c", "$defs": {"a/b c": {"type": "string"}}}"##)
        #expect(try !JSONSchema(escaped, dialect: .draft2020_12).isValid(.integer(1)))
    }

    @Test("$ref beside other keywords: 2020-12 checks both, OpenAPI 3.0 ignores the others")
    func referenceSiblings() throws {
        let text = ##"{"$ref": "#/$defs/s", "maxLength": 2, "$defs": {"s": {"type": "string"}}}"##
        #expect(try !accepts(text, #""abc""#))
        #expect(try accepts(text, #""abc""#, .openAPI30))
        #expect(try !accepts(text, "1", .openAPI30))
    }

    @Test("a $ref loop that never looks inside the value is refused when compiled, naming the ref")
    func circularReference() throws {
        let loop = json(##"{"components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}}}}"##)
        let error = #expect(throws: SchemaError.self) {
            try JSONSchema(document: loop, pointer: "#/components/schemas/A", dialect: .openAPI30)
        }
        #expect(error?.reason == .circularReference("#/components/schemas/B"))
        #expect(error?.description == ##"schema #/components/schemas/A: $ref "#/components/schemas/B" is circular: it leads back here without looking inside the value"##)
        // Through allOf too.
        #expect(throws: SchemaError.self) {
            try JSONSchema(json(##"{"$defs": {"x": {"allOf": [{"$ref": "#/$defs/x"}]}}, "$ref": "#/$defs/x"}"##), dialect: .draft2020_12)
        }
        // Recursion through a property is fine.
        _ = try schema(##"{"$defs": {"x": {"properties": {"next": {"$ref": "#/$defs/x"}}}}, "$ref": "#/$defs/x"}"##)
    }

    @Test("an unknown $ref is named; other files and dynamic refs are warnings, once")
    func unknownReferences() throws {
        let error = #expect(throws: SchemaError.self) {
            try schema(##"{"properties": {"a": {"$ref": "#/components/schemas/Usr"}}}"##, .openAPI30)
        }
        #expect(error?.reason == .unknownReference("#/components/schemas/Usr"))
        #expect(error?.location == "#/properties/a")
        let remote = try schema(##"{"properties": {"a": {"$ref": "other.yaml#/X"}, "b": {"$ref": "other.yaml#/X"}, "c": {"$dynamicRef": "#n"}}}"##)
        #expect(remote.warnings.map(\.description) == [
            #"schema #/properties/a: $ref "other.yaml#/X" is not a pointer into this document (#/...); not followed, anything is accepted there"#,
            "schema #/properties/c: $dynamicRef is not supported; not checked",
        ])
        #expect(remote.isValid(json(#"{"a": 1}"#)))
        #expect(throws: SchemaError.self) {
            try JSONSchema(document: json("{}"), pointer: "#/components/schemas/Missing", dialect: .openAPI30)
        }
    }

    // MARK: Malformed and hostile input

    @Test("a malformed keyword is an error at its place")
    func malformedKeywords() throws {
        let cases: [(String, SchemaError)] = [
            (#"{"properties": {"a": {"minLength": -1}}}"#,
             SchemaError(location: "#/properties/a/minLength", reason: .invalidKeyword("minLength", expected: "a whole number, 0 or more"))),
            (#"{"type": "integr"}"#,
             SchemaError(location: "#/type", reason: .invalidKeyword("type", expected: "null, boolean, integer, number, string, array or object"))),
            (#"{"required": "id"}"#, SchemaError(location: "#/required", reason: .invalidKeyword("required", expected: "a list of property names"))),
            (#"{"pattern": "a("}"#, SchemaError(location: "#/pattern", reason: .invalidPattern("a("))),
            (#"{"items": 3}"#, SchemaError(location: "#/items", reason: .notASchema)),
            (#"{"anyOf": []}"#, SchemaError(location: "#/anyOf", reason: .invalidKeyword("anyOf", expected: "a non-empty list of schemas"))),
        ]
        for (text, expected) in cases {
            #expect(throws: expected) { try schema(text) }
        }
        #expect(SchemaError(location: "#/pattern", reason: .invalidPattern("a(")).description
                == #"schema #/pattern: "a(" is not a valid regular expression"#)
    }

    @Test("hostile input: deep values and deep schemas end in a violation or an error, never a crash")
    func hostileDepth() throws {
        let anything = try schema(##"{"$defs": {"any": {"items": {"$ref": "#/$defs/any"}}}, "$ref": "#/$defs/any"}"##)
        var deep = JSONValue.null
        for _ in 0..<5_000 { deep = .array([deep]) }
        let found = anything.validate(deep)
        #expect(found.count == 1)
        #expect(found.first?.message == "nested deeper than 128 levels; not checked further")
        #expect(found.first?.path.segments.count == 129)

        var nested = JSONValue.object([:])
        for _ in 0..<5_000 { nested = .object(["not": nested]) }
        #expect(throws: SchemaError(location: "#" + String(repeating: "/not", count: 129), reason: .tooDeep(limit: 128))) {
            try JSONSchema(nested, dialect: .draft2020_12)
        }
        // A long chain of refs is compiled without recursion and checked within the depth bound.
        var defs: [String: JSONValue] = [:]
        for index in 0..<3_000 { defs["d\(index)"] = .object(["$ref": .string("#/$defs/d\(index + 1)")]) }
        defs["d3000"] = .object(["type": .string("integer")])
        let chain = try JSONSchema(.object(["$defs": .object(defs), "$ref": .string("#/$defs/d0")]), dialect: .draft2020_12)
        #expect(!chain.isValid(.string("x")))
    }

    // MARK: Reporting

    @Test("violations are bounded, in document order, and the same every run")
    func orderAndLimit() throws {
        let strict = try schema(#"{"additionalProperties": {"type": "integer"}, "items": {"type": "integer"}}"#)
        var members: [String: JSONValue] = [:]
        for index in 0..<200 { members["k\(1_000 + index)"] = .string("x") }
        let found = strict.validate(.object(members))
        #expect(found.count == 50)
        #expect(found.first?.description == "$.k1000: expected integer, got string")
        #expect(found == strict.validate(.object(members)))
        #expect(strict.validate(.object(members), limit: 3).map(\.path.description) == ["$.k1000", "$.k1001", "$.k1002"])
        // The nested place after its parent, elements by index.
        let mixed = try schema(#"{"required": ["z"], "properties": {"a": {"items": {"type": "string"}}}, "allOf": [{"properties": {"b": {"type": "null"}}}]}"#)
        #expect(mixed.validate(json(#"{"b": 1, "a": [1, "x", 2]}"#)).map(\.description) == [
            #"$: required property "z" missing"#,
            "$.a[0]: expected string, got integer",
            "$.a[2]: expected string, got integer",
            "$.b: expected null, got integer",
        ])
        #expect(found.first?.schemaLocation == "#/additionalProperties/type")
    }

    @Test("a recursive schema with formats, patterns and unique items takes a page of bodies")
    func realisticSchema() throws {
        let document = json("""
            {"components": {"schemas": {
              "User": {"type": "object", "required": ["id", "email"], "additionalProperties": false, "properties": {
                "id": {"type": "integer", "format": "int64", "minimum": 1},
                "email": {"type": "string", "format": "email"},
                "name": {"type": "string", "nullable": true, "maxLength": 100},
                "created": {"type": "string", "format": "date-time"},
                "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "uniqueItems": true},
                "manager": {"$ref": "#/components/schemas/User"}}}}}}
            """)
        let user = try JSONSchema(document: document, pointer: "#/components/schemas/User", dialect: .openAPI30)
        let body = json(#"{"id": 7, "email": "a@example.com", "name": null, "created": "2026-11-21T10:00:00Z", "tags": ["a", "b", "c"],"#
                        + #""manager": {"id": 8, "email": "b@example.com", "tags": []}}"#)
        let page = JSONValue.array(Array(repeating: body, count: 20))
        let list = try JSONSchema(.object(["type": .string("array"), "items": .object(["$ref": .string("#/components/schemas/User")]),
                                           "components": document.objectMember("components")]), dialect: .openAPI30)
        #expect(user.isValid(body))
        #expect(list.validate(page).isEmpty)
    }
}

extension JSONValue {
    /// The value of a JSON text written in a test; null, and a test failure, when it is not JSON.
    init(schemaTestText text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let value = JSONValue(parsing: Data(text.utf8)) else {
            Issue.record("not JSON: \(text)", sourceLocation: sourceLocation)
            self = .null
            return
        }
        self = value
    }

    /// A member of an object, or null.
    func objectMember(_ name: String) -> JSONValue {
        guard case .object(let members) = self else { return .null }
        return members[name] ?? .null
    }
}
