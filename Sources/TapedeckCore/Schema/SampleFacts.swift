/// What a sample must satisfy, gathered from one or more schema nodes, their `$ref`s and their
/// `allOf` parts, with bounds tightened and types intersected, so one value can be built for all.
/// `anyOf`/`oneOf` are left as choices for ``SampleBuilder`` to make.
struct SampleFacts {
    /// The nodes merged in; the sample is checked against them at the end.
    private(set) var merged: Set<SchemaNode.ID> = []
    /// A `false` schema or types with nothing in common.
    var isImpossible = false

    var types: SchemaNode.Types?
    var typeNames: [String] = []
    var examples: [JSONValue] = []
    var constValue: JSONValue?
    var enumValues: [JSONValue]?
    var format: SchemaFormat?

    var properties: [String: [SchemaNode.ID]] = [:]
    var required: [String] = []
    var additionalProperties: [SchemaNode.ID] = []
    var forbidsAdditionalProperties = false
    var patternProperties: [(pattern: SchemaPattern, schema: SchemaNode.ID)] = []
    var dependentRequired: [(property: String, requires: [String])] = []
    /// Values fixed by a discriminator for the branch chosen.
    var fixedProperties: [String: JSONValue] = [:]
    var minProperties: Int?
    var maxProperties: Int?

    var prefixItems: [[SchemaNode.ID]] = []
    var items: [SchemaNode.ID] = []
    var forbidsMoreItems = false
    var contains: [SchemaNode.ID] = []
    var minContains: Int?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false

    var minLength: Int?
    var maxLength: Int?
    var patterns: [SchemaPattern] = []

    var lower: (bound: SchemaNumber, exclusive: Bool)?
    var upper: (bound: SchemaNumber, exclusive: Bool)?
    var multiplesOf: [SchemaNumber] = []

    /// `anyOf`/`oneOf` lists not yet decided, with the discriminator of their node.
    var choices: [(branches: [SchemaNode.ID], discriminator: SchemaNode.Discriminator?)] = []

    /// Adds the constraints of node `id`, following its `$ref` and `allOf` (to a bounded depth:
    /// a chain of thousands of `$ref`s is hostile, and merging stops there).
    mutating func merge(_ id: SchemaNode.ID, from nodes: [SchemaNode], depth: Int = 0) {
        guard depth < 256, merged.insert(id).inserted else { return }
        let node = nodes[id]
        if node.rejectsEverything { isImpossible = true }
        if let reference = node.reference { merge(reference.target, from: nodes, depth: depth + 1) }
        if let nodeTypes = node.types { narrowTypes(to: nodeTypes, names: node.typeNames) }
        examples += node.examples
        if let value = node.constValue { constValue = constValue ?? value }
        if let values = node.enumValues { enumValues = enumValues.map { $0.filter(values.contains) } ?? values }
        format = format ?? node.format

        for (name, schema) in node.properties { properties[name, default: []].append(schema) }
        for name in node.required where !required.contains(name) { required.append(name) }
        if let additional = node.additionalProperties {
            if nodes[additional].rejectsEverything { forbidsAdditionalProperties = true } else { additionalProperties.append(additional) }
        }
        patternProperties += node.patternProperties
        dependentRequired += node.dependentRequired
        minProperties = tighter(minProperties, node.minProperties, by: max)
        maxProperties = tighter(maxProperties, node.maxProperties, by: min)

        for (index, schema) in node.prefixItems.enumerated() {
            if prefixItems.count <= index { prefixItems.append([]) }
            prefixItems[index].append(schema)
        }
        if let itemSchema = node.items {
            if nodes[itemSchema].rejectsEverything { forbidsMoreItems = true } else { items.append(itemSchema) }
        }
        if let containsSchema = node.contains {
            contains.append(containsSchema)
            minContains = tighter(minContains, node.minContains ?? 1, by: max)
        }
        minItems = tighter(minItems, node.minItems, by: max)
        maxItems = tighter(maxItems, node.maxItems, by: min)
        uniqueItems = uniqueItems || node.uniqueItems

        minLength = tighter(minLength, node.minLength, by: max)
        maxLength = tighter(maxLength, node.maxLength, by: min)
        if let pattern = node.pattern { patterns.append(pattern) }

        raiseLower(node.minimum, exclusive: false)
        raiseLower(node.exclusiveMinimum, exclusive: true)
        lowerUpper(node.maximum, exclusive: false)
        lowerUpper(node.exclusiveMaximum, exclusive: true)
        if let step = node.multipleOf { multiplesOf.append(step) }

        if !node.anyOf.isEmpty { choices.append((node.anyOf, node.discriminator)) }
        if !node.oneOf.isEmpty { choices.append((node.oneOf, node.discriminator)) }
        for part in node.allOf { merge(part, from: nodes, depth: depth + 1) }
    }

    /// Intersects the allowed types; `number` and `integer` meet in `integer`.
    private mutating func narrowTypes(to other: SchemaNode.Types, names: [String]) {
        guard let current = types else {
            types = other
            typeNames = names
            return
        }
        var both = current.intersection(other)
        if (current.contains(.number) && other.contains(.integer)) || (current.contains(.integer) && other.contains(.number)) {
            both.insert(.integer)
        }
        types = both
        typeNames = (typeNames + names).filter { name in SchemaNode.Types(name: name).map(both.contains) ?? false }
        typeNames = typeNames.enumerated().filter { typeNames.firstIndex(of: $0.element) == $0.offset }.map(\.element)
        if both.isEmpty { isImpossible = true }
    }

    private mutating func raiseLower(_ bound: SchemaNumber?, exclusive: Bool) {
        guard let bound else { return }
        if let current = lower, current.bound > bound || (current.bound == bound && current.exclusive) { return }
        lower = (bound, exclusive)
    }

    private mutating func lowerUpper(_ bound: SchemaNumber?, exclusive: Bool) {
        guard let bound else { return }
        if let current = upper, current.bound < bound || (current.bound == bound && current.exclusive) { return }
        upper = (bound, exclusive)
    }

    private func tighter(_ current: Int?, _ new: Int?, by pick: (Int, Int) -> Int) -> Int? {
        guard let new else { return current }
        return current.map { pick($0, new) } ?? new
    }
}
