/// Checks one value against a compiled schema graph, recording violations as it goes.
///
/// `check` returns whether the value holds; it records at most `limit` violations and, once full,
/// stops early (the value is known to be invalid by then). Where a verdict steers the check
/// (`anyOf`, `oneOf`, `not`, `if`, `contains`), a separate probe with a limit of one decides it, so
/// what is recorded never changes what is valid.
struct SchemaValidator {
    /// How deeply nested a value may be checked; deeper places are one violation each.
    static let maximumValueDepth = 128
    /// How many schemas may be in progress at once (each level of a value may pass through several:
    /// a `$ref`, an `allOf`, the property's own schema); bounds the stack on hostile input.
    static let maximumSchemaDepth = 1024

    let nodes: [SchemaNode]
    let assertsFormats: Bool
    let limit: Int
    private(set) var violations: [SchemaViolation] = []
    /// The place in the value being checked.
    private var path: [JSONPath.Segment]
    private var depth: Int

    init(nodes: [SchemaNode], assertsFormats: Bool, limit: Int, path: [JSONPath.Segment] = [], depth: Int = 0) {
        self.nodes = nodes
        self.assertsFormats = assertsFormats
        self.limit = max(1, limit)
        self.path = path
        self.depth = depth
    }

    private var isFull: Bool { violations.count >= limit }

    /// Whether `value` holds against node `id`; what breaks it is recorded in ``violations``.
    mutating func check(_ id: SchemaNode.ID, _ value: JSONValue) -> Bool {
        guard !isFull else { return false }
        let node = nodes[id]
        if node.rejectsEverything {
            record(node, nil, "no value is allowed here")
            return false
        }
        guard path.count <= Self.maximumValueDepth, depth < Self.maximumSchemaDepth else {
            record(node, nil, "nested deeper than \(Self.maximumValueDepth) levels; not checked further")
            return false
        }
        depth += 1
        defer { depth -= 1 }

        var valid = true
        if let reference = node.reference {
            valid = check(reference.target, value)
        }
        if let types = node.types, !types.admits(value) {
            // Nothing else about a value of the wrong type is worth saying.
            record(node, "type", "expected \(Self.names(node.typeNames)), got \(value.schemaTypeName)")
            return false
        }
        if let values = node.enumValues, !values.contains(value) {
            record(node, "enum", "\(Self.show(value)) is not one of \(Self.show(values))")
            valid = false
        }
        if let constant = node.constValue, constant != value {
            record(node, "const", "expected \(Self.show(constant)), got \(Self.show(value))")
            valid = false
        }
        if assertsFormats, let format = node.format, !format.accepts(value) {
            record(node, "format", "\(Self.show(value)) is not a valid \(format.rawValue)")
            valid = false
        }
        switch value {
        case .object(let members): valid = checkObject(node, members) && valid
        case .array(let elements): valid = checkArray(node, elements) && valid
        case .string(let text): valid = checkString(node, text) && valid
        case .integer, .double: valid = checkNumber(node, value) && valid
        case .null, .bool: break
        }
        return checkCombinations(node, value) && valid
    }

    // MARK: Keywords by type

    private mutating func checkObject(_ node: SchemaNode, _ members: [String: JSONValue]) -> Bool {
        var valid = true
        for name in node.required where members[name] == nil {
            record(node, "required", "required property \"\(name)\" missing")
            valid = false
        }
        if let minimum = node.minProperties, members.count < minimum {
            record(node, "minProperties", "expected at least \(minimum) \(Self.plural(minimum, "property", "properties")), got \(members.count)")
            valid = false
        }
        if let maximum = node.maxProperties, members.count > maximum {
            record(node, "maxProperties", "expected at most \(maximum) \(Self.plural(maximum, "property", "properties")), got \(members.count)")
            valid = false
        }
        for (property, needed) in node.dependentRequired where members[property] != nil {
            for name in needed where members[name] == nil {
                record(node, "dependentRequired", "property \"\(property)\" requires \"\(name)\", which is missing")
                valid = false
            }
        }
        let looksAtMembers = !node.properties.isEmpty || !node.patternProperties.isEmpty
            || node.additionalProperties != nil || node.propertyNames != nil
        guard looksAtMembers else { return valid }
        for key in members.keys.sorted() {
            guard !isFull else { return false }
            if let names = node.propertyNames {
                valid = check(names, .string(key)) && valid
            }
            let member = members[key]!
            var declared = false
            path.append(.key(key))
            if let schema = node.properties[key] {
                declared = true
                valid = check(schema, member) && valid
            }
            for (pattern, schema) in node.patternProperties where pattern.matches(key) {
                declared = true
                valid = check(schema, member) && valid
            }
            path.removeLast()
            if !declared, let additional = node.additionalProperties {
                if nodes[additional].rejectsEverything {
                    record(node, "additionalProperties", "property \"\(key)\" is not allowed")
                    valid = false
                } else {
                    path.append(.key(key))
                    valid = check(additional, member) && valid
                    path.removeLast()
                }
            }
        }
        return valid
    }

    private mutating func checkArray(_ node: SchemaNode, _ elements: [JSONValue]) -> Bool {
        var valid = true
        if let minimum = node.minItems, elements.count < minimum {
            record(node, "minItems", "expected at least \(minimum) \(Self.plural(minimum, "item", "items")), got \(elements.count)")
            valid = false
        }
        if let maximum = node.maxItems, elements.count > maximum {
            record(node, "maxItems", "expected at most \(maximum) \(Self.plural(maximum, "item", "items")), got \(elements.count)")
            valid = false
        }
        if node.uniqueItems {
            var seen: [JSONValue: Int] = [:]
            for (index, element) in elements.enumerated() {
                if let earlier = seen[element] {
                    record(node, "uniqueItems", "items [\(earlier)] and [\(index)] are equal; items must be unique")
                    valid = false
                    break
                }
                seen[element] = index
            }
        }
        if !node.prefixItems.isEmpty || node.items != nil {
            for (index, element) in elements.enumerated() {
                guard !isFull else { return false }
                guard let schema = index < node.prefixItems.count ? node.prefixItems[index] : node.items else { break }
                path.append(.index(index))
                valid = check(schema, element) && valid
                path.removeLast()
            }
        }
        if let contains = node.contains {
            var matching = 0
            for (index, element) in elements.enumerated() {
                path.append(.index(index))
                if passes(contains, element) { matching += 1 }
                path.removeLast()
            }
            let minimum = node.minContains ?? 1
            if matching < minimum {
                record(node, "contains", minimum == 1 ? "no item matches the \"contains\" schema"
                       : "expected at least \(minimum) items matching \"contains\", got \(matching)")
                valid = false
            }
            if let maximum = node.maxContains, matching > maximum {
                record(node, "maxContains", "expected at most \(maximum) \(Self.plural(maximum, "item", "items")) matching \"contains\", got \(matching)")
                valid = false
            }
        }
        return valid
    }

    private mutating func checkString(_ node: SchemaNode, _ text: String) -> Bool {
        var valid = true
        if node.minLength != nil || node.maxLength != nil {
            // JSON Schema counts characters as Unicode code points.
            let length = text.unicodeScalars.count
            if let minimum = node.minLength, length < minimum {
                record(node, "minLength", "expected at least \(minimum) \(Self.plural(minimum, "character", "characters")), got \(length)")
                valid = false
            }
            if let maximum = node.maxLength, length > maximum {
                record(node, "maxLength", "expected at most \(maximum) \(Self.plural(maximum, "character", "characters")), got \(length)")
                valid = false
            }
        }
        if let pattern = node.pattern, !pattern.matches(text) {
            record(node, "pattern", "\(Self.show(.string(text))) does not match the pattern \(pattern.source)")
            valid = false
        }
        return valid
    }

    private mutating func checkNumber(_ node: SchemaNode, _ value: JSONValue) -> Bool {
        guard let number = SchemaNumber(value) else { return true }
        var valid = true
        if let minimum = node.minimum, number < minimum {
            record(node, "minimum", "\(number) is less than the minimum \(minimum)")
            valid = false
        }
        if let maximum = node.maximum, number > maximum {
            record(node, "maximum", "\(number) is greater than the maximum \(maximum)")
            valid = false
        }
        if let bound = node.exclusiveMinimum, number <= bound {
            record(node, "exclusiveMinimum", "\(number) is not greater than \(bound)")
            valid = false
        }
        if let bound = node.exclusiveMaximum, number >= bound {
            record(node, "exclusiveMaximum", "\(number) is not less than \(bound)")
            valid = false
        }
        if let step = node.multipleOf, !number.isMultiple(of: step) {
            record(node, "multipleOf", "\(number) is not a multiple of \(step)")
            valid = false
        }
        return valid
    }

    // MARK: Combinations

    private mutating func checkCombinations(_ node: SchemaNode, _ value: JSONValue) -> Bool {
        var valid = true
        for schema in node.allOf {
            valid = check(schema, value) && valid
        }
        if let branch = discriminatedBranch(node, value) {
            valid = check(branch, value) && valid
        } else {
            if !node.anyOf.isEmpty, !node.anyOf.contains(where: { passes($0, value) }) {
                explainNoMatch(node, "anyOf", node.anyOf, value)
                valid = false
            }
            if !node.oneOf.isEmpty {
                var matching: [Int] = []
                for (index, schema) in node.oneOf.enumerated() where matching.count < 2 && passes(schema, value) {
                    matching.append(index)
                }
                if matching.isEmpty {
                    explainNoMatch(node, "oneOf", node.oneOf, value)
                    valid = false
                } else if matching.count > 1 {
                    record(node, "oneOf", "matches oneOf schemas [\(matching[0])] and [\(matching[1])]; exactly one must match")
                    valid = false
                }
            }
        }
        if let not = node.not, passes(not, value) {
            record(node, "not", "must not match the \"not\" schema")
            valid = false
        }
        if let condition = node.ifSchema {
            if let consequence = passes(condition, value) ? node.thenSchema : node.elseSchema {
                valid = check(consequence, value) && valid
            }
        }
        if case .object(let members) = value {
            for (property, schema) in node.dependentSchemas where members[property] != nil {
                valid = check(schema, value) && valid
            }
        }
        return valid
    }

    /// The branch an OpenAPI discriminator picks for `value`: nil (plain `oneOf`/`anyOf`) when
    /// there is no discriminator, the property is missing, or its value names no branch.
    private func discriminatedBranch(_ node: SchemaNode, _ value: JSONValue) -> SchemaNode.ID? {
        guard let discriminator = node.discriminator, !node.oneOf.isEmpty || !node.anyOf.isEmpty,
              case .object(let members) = value, case .string(let name)? = members[discriminator.propertyName]
        else { return nil }
        return discriminator.branches[name]
    }

    /// Says why no branch of `anyOf`/`oneOf` matched: when exactly one branch fails for a reason
    /// other than the value's type, its own violations are the useful ones; otherwise one line.
    private mutating func explainNoMatch(_ node: SchemaNode, _ keyword: String, _ branches: [SchemaNode.ID], _ value: JSONValue) {
        var nearMisses: [[SchemaViolation]] = []
        for branch in branches where !nodes[branch].rejectsEverything {
            var probe = SchemaValidator(nodes: nodes, assertsFormats: assertsFormats, limit: min(10, limit - violations.count),
                                        path: path, depth: depth)
            _ = probe.check(branch, value)
            let isWrongType = probe.violations.first.map { $0.path.segments == path && $0.schemaLocation.hasSuffix("/type") } ?? false
            if !isWrongType { nearMisses.append(probe.violations) }
        }
        if nearMisses.count == 1 {
            for violation in nearMisses[0] where !isFull { violations.append(violation) }
        } else {
            record(node, keyword, "matches none of the \(branches.count) \(keyword) schemas")
        }
    }

    /// Whether `value` (at the current place) holds against node `id`, recording nothing here.
    private func passes(_ id: SchemaNode.ID, _ value: JSONValue) -> Bool {
        var probe = SchemaValidator(nodes: nodes, assertsFormats: assertsFormats, limit: 1, path: path, depth: depth)
        return probe.check(id, value)
    }

    // MARK: Messages

    private mutating func record(_ node: SchemaNode, _ keyword: String?, _ message: String) {
        guard !isFull else { return }
        let location = keyword.map { node.location.appending($0) } ?? node.location
        violations.append(SchemaViolation(path: JSONPath(segments: path), message: message, schemaLocation: location.description))
    }

    /// `integer`, `string or null`, `string, integer or null`.
    private static func names(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "nothing" }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    private static func plural(_ count: Int, _ one: String, _ many: String) -> String {
        count == 1 ? one : many
    }

    /// A value for a message: JSON, long strings shortened, containers elided (`{…}`).
    static func show(_ value: JSONValue) -> String {
        if case .string(let text) = value, text.unicodeScalars.count > 40 {
            return JSONValue.string(String(String.UnicodeScalarView(text.unicodeScalars.prefix(37))) + "…").summary
        }
        return value.summary
    }

    /// `["a", "b"]`, at most ten values.
    static func show(_ values: [JSONValue]) -> String {
        let shown = values.prefix(10).map(show) + (values.count > 10 ? ["…"] : [])
        return "[" + shown.joined(separator: ", ") + "]"
    }
}

extension JSONValue {
    /// The JSON type of the value, as `type` names it (a number with a fraction or exponent is `number`).
    var schemaTypeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
