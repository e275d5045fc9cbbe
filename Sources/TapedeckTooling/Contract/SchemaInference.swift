import TapedeckCore

/// A JSON Schema (2020-12, as OpenAPI 3.1 writes it) that every one of the values seen so far
/// satisfies, grown one value at a time: types, with `null` where one was null; an object's
/// properties, `required` where every object had them; an array's items, merged.
struct SchemaInference {
    private var types: Set<String> = []
    private var properties: [String: SchemaInference] = [:]
    /// How many objects were seen, and how many had each property.
    private var objectCount = 0
    private var propertyCounts: [String: Int] = [:]
    /// The schema of an array's items, merged over every array (none or one: an array keeps it apart, as a struct cannot hold itself).
    private var items: [SchemaInference] = []
    /// Past this depth values are not looked into: any value fits.
    private static let depthLimit = 32

    /// Takes one more value.
    mutating func add(_ value: JSONValue, depth: Int = 0) {
        guard depth < Self.depthLimit else { return }
        switch value {
        case .null: types.insert("null")
        case .bool: types.insert("boolean")
        case .integer: types.insert("integer")
        case .double: types.insert("number")
        case .string: types.insert("string")
        case .array(let elements):
            types.insert("array")
            var merged = items.first ?? SchemaInference()
            for element in elements { merged.add(element, depth: depth + 1) }
            items = [merged]
        case .object(let members):
            types.insert("object")
            objectCount += 1
            for (name, member) in members {
                properties[name, default: SchemaInference()].add(member, depth: depth + 1)
                propertyCounts[name, default: 0] += 1
            }
        }
    }

    /// The schema: `{}` (anything) when nothing was seen.
    var schema: JSONValue {
        var schema: [String: JSONValue] = [:]
        // An integer among numbers is a number.
        var names = types
        if names.contains("number") { names.remove("integer") }
        let sorted = names.sorted()
        if sorted.count == 1 { schema["type"] = .string(sorted[0]) } else if !sorted.isEmpty { schema["type"] = .array(sorted.map(JSONValue.string)) }
        if names.contains("object") {
            schema["properties"] = .object(properties.mapValues(\.schema))
            let required = propertyCounts.filter { $0.value == objectCount }.keys.sorted()
            if !required.isEmpty { schema["required"] = .array(required.map(JSONValue.string)) }
        }
        if names.contains("array") { schema["items"] = items.first?.schema ?? .object([:]) }
        return .object(schema)
    }
}
