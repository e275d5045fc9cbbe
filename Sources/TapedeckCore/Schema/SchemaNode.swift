/// One schema of a compiled ``JSONSchema``: its keywords read and checked once, its subschemas and
/// `$ref` targets replaced by the indexes of other nodes in the same graph.
struct SchemaNode: Sendable {
    /// A node's index in its graph.
    typealias ID = Int

    /// The JSON types a `type` keyword admits.
    struct Types: OptionSet, Sendable, Hashable {
        let rawValue: UInt8
        static let null = Types(rawValue: 1)
        static let boolean = Types(rawValue: 2)
        static let integer = Types(rawValue: 4)
        static let number = Types(rawValue: 8)
        static let string = Types(rawValue: 16)
        static let array = Types(rawValue: 32)
        static let object = Types(rawValue: 64)

        /// The type a `type` keyword names, or nil for an unknown name.
        init?(name: String) {
            switch name {
            case "null": self = .null
            case "boolean": self = .boolean
            case "integer": self = .integer
            case "number": self = .number
            case "string": self = .string
            case "array": self = .array
            case "object": self = .object
            default: return nil
            }
        }

        init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// Whether a value of one of these types; `number` admits integers, and `integer` admits `2.0`.
        func admits(_ value: JSONValue) -> Bool {
            switch value {
            case .null: return contains(.null)
            case .bool: return contains(.boolean)
            case .integer: return contains(.integer) || contains(.number)
            case .double(let double):
                return contains(.number) || (contains(.integer) && double.isFinite && double.rounded(.towardZero) == double)
            case .string: return contains(.string)
            case .array: return contains(.array)
            case .object: return contains(.object)
            }
        }
    }

    /// OpenAPI's `discriminator`: the property whose value names the `oneOf`/`anyOf` branch to check.
    struct Discriminator: Sendable {
        /// The property that holds the branch's name.
        let propertyName: String
        /// Each name's branch: the `mapping` entries, then the last pointer token of each branch's `$ref`.
        let branches: [String: ID]
    }

    /// The JSON pointer of this schema in its document, for messages.
    var location: JSONPointer
    /// `false`, or a schema that can never hold: every value breaks it.
    var rejectsEverything = false

    // MARK: Any value
    var types: Types?
    /// The type names as written, for messages and for choosing a sample's type.
    var typeNames: [String] = []
    var enumValues: [JSONValue]?
    var constValue: JSONValue?
    /// The `$ref` target, and the reference as written.
    var reference: (target: ID, text: String)?
    var format: SchemaFormat?

    // MARK: Objects
    var properties: [String: ID] = [:]
    var patternProperties: [(pattern: SchemaPattern, schema: ID)] = []
    var additionalProperties: ID?
    var required: [String] = []
    var dependentRequired: [(property: String, requires: [String])] = []
    var dependentSchemas: [(property: String, schema: ID)] = []
    var propertyNames: ID?
    var minProperties: Int?
    var maxProperties: Int?

    // MARK: Arrays
    var prefixItems: [ID] = []
    var items: ID?
    var contains: ID?
    var minContains: Int?
    var maxContains: Int?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false

    // MARK: Strings
    var minLength: Int?
    var maxLength: Int?
    var pattern: SchemaPattern?

    // MARK: Numbers
    var minimum: SchemaNumber?
    var maximum: SchemaNumber?
    var exclusiveMinimum: SchemaNumber?
    var exclusiveMaximum: SchemaNumber?
    var multipleOf: SchemaNumber?

    // MARK: Combinations
    var allOf: [ID] = []
    var anyOf: [ID] = []
    var oneOf: [ID] = []
    var not: ID?
    var ifSchema: ID?
    var thenSchema: ID?
    var elseSchema: ID?
    var discriminator: Discriminator?

    // MARK: Annotations
    /// `example`, each of `examples`, then `default`: values a sample offers first.
    var examples: [JSONValue] = []

    init(location: JSONPointer) {
        self.location = location
    }

    /// The subschemas checked against the same value as this one (not against a member or an
    /// element): a loop through these alone would never end.
    var inPlaceSubschemas: [ID] {
        var found: [ID] = []
        if let reference { found.append(reference.target) }
        found += allOf + anyOf + oneOf
        found += [not, ifSchema, thenSchema, elseSchema].compactMap { $0 }
        found += dependentSchemas.map(\.schema)
        if let discriminator { found += discriminator.branches.keys.sorted().compactMap { discriminator.branches[$0] } }
        return found
    }
}
