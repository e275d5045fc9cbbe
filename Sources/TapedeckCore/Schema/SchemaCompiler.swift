/// Reads a schema (inside its document) into a graph of ``SchemaNode``s: each schema place once,
/// every `$ref` resolved through a cache keyed by JSON pointer, regular expressions compiled once,
/// then `$ref` loops that never look inside the value refused.
///
/// A `$ref` target is compiled from a work list rather than by recursion, so a long chain of
/// references cannot exhaust the stack; only the nesting written inside one schema recurses, and it
/// is bounded by ``maximumNesting``.
struct SchemaCompiler {
    /// How deep schemas may nest inside one another (refs start again at zero).
    static let maximumNesting = 128

    let document: JSONValue
    let dialect: JSONSchema.Dialect
    private(set) var nodes: [SchemaNode] = []
    private(set) var warnings: [SchemaWarning] = []
    /// The node compiled (or reserved) for each schema place.
    private var nodeAt: [JSONPointer: SchemaNode.ID] = [:]
    /// `$ref` targets reserved but not yet read.
    private var pending: [(id: SchemaNode.ID, pointer: JSONPointer, value: JSONValue)] = []
    private var patterns: [String: SchemaPattern] = [:]
    private var warned: Set<String> = []

    init(document: JSONValue, dialect: JSONSchema.Dialect) {
        self.document = document
        self.dialect = dialect
    }

    /// Compiles the schema at `pointer` and every schema it reaches; returns the root node.
    mutating func compile(at pointer: JSONPointer) throws(SchemaError) -> SchemaNode.ID {
        guard let value = pointer.resolve(in: document) else {
            throw SchemaError(location: JSONPointer.root.description, reason: .unknownReference(pointer.description))
        }
        let root = try compile(value, at: pointer, depth: 0)
        while let next = pending.popLast() {
            nodes[next.id] = try read(next.value, at: next.pointer, depth: 0)
        }
        try refuseLoops(from: root)
        return root
    }

    // MARK: Schema places

    /// The node of the schema `value` at `pointer`, reading it unless that place was read already.
    private mutating func compile(_ value: JSONValue, at pointer: JSONPointer, depth: Int,
                                  booleanIsNative: Bool = false) throws(SchemaError) -> SchemaNode.ID {
        if let known = nodeAt[pointer] { return known }
        let id = reserve(pointer)
        nodes[id] = try read(value, at: pointer, depth: depth, booleanIsNative: booleanIsNative)
        return id
    }

    private mutating func reserve(_ pointer: JSONPointer) -> SchemaNode.ID {
        let id = nodes.count
        nodes.append(SchemaNode(location: pointer))
        nodeAt[pointer] = id
        return id
    }

    /// The node a `$ref` points to, reserved now and read later; nil (after a warning) for a
    /// reference this compiler does not follow (another file, a URL, an anchor name).
    private mutating func resolve(reference text: String, from location: JSONPointer) throws(SchemaError) -> SchemaNode.ID? {
        guard text.hasPrefix("#"), let pointer = JSONPointer(text) else {
            warn("$ref \"\(text)\" is not a pointer into this document (#/...); not followed, anything is accepted there",
                 at: location)
            return nil
        }
        if let known = nodeAt[pointer] { return known }
        guard let value = pointer.resolve(in: document) else {
            throw SchemaError(location: location.description, reason: .unknownReference(text))
        }
        let id = reserve(pointer)
        pending.append((id, pointer, value))
        return id
    }

    /// Reads one schema's keywords; subschemas are compiled on the way.
    private mutating func read(_ value: JSONValue, at pointer: JSONPointer, depth: Int,
                               booleanIsNative: Bool = false) throws(SchemaError) -> SchemaNode {
        guard depth <= Self.maximumNesting else {
            throw SchemaError(location: pointer.description, reason: .tooDeep(limit: Self.maximumNesting))
        }
        var node = SchemaNode(location: pointer)
        let object: [String: JSONValue]
        switch value {
        case .bool(let accepts):
            if dialect == .openAPI30 && !booleanIsNative {
                warn("true and false as schemas are JSON Schema 2020-12 (OpenAPI 3.1); read as such", at: pointer)
            }
            node.rejectsEverything = !accepts
            return node
        case .object(let members):
            object = members
        default:
            throw SchemaError(location: pointer.description, reason: .notASchema)
        }
        let reader = KeywordReader(object: object, pointer: pointer)

        if let reference = try reader.string("$ref") {
            if let target = try resolve(reference: reference, from: pointer) { node.reference = (target, reference) }
            // OpenAPI 3.0: "This object cannot be extended with additional properties and any properties
            // added SHALL be ignored."
            if dialect == .openAPI30 { return node }
        }
        try readGeneral(&node, reader)
        try readNumbers(&node, reader)
        try readStrings(&node, reader)
        try readArrays(&node, reader, depth: depth)
        try readObjects(&node, reader, depth: depth)
        try readCombinations(&node, reader, depth: depth)
        for keyword in ["$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems"] where object[keyword] != nil {
            warn("\(keyword) is not supported; not checked", at: pointer)
        }
        return node
    }

    private mutating func readGeneral(_ node: inout SchemaNode, _ reader: KeywordReader) throws(SchemaError) {
        if let type = reader.object["type"] {
            let names: [String]
            switch type {
            case .string(let name):
                names = [name]
            case .array(let list):
                if dialect == .openAPI30 { warn("a list of types is JSON Schema 2020-12 (OpenAPI 3.1); read as such", at: reader.pointer) }
                names = try list.map { (entry) throws(SchemaError) -> String in
                    guard case .string(let name) = entry else { throw reader.invalid("type", "a type name or a list of type names") }
                    return name
                }
            default:
                throw reader.invalid("type", "a type name or a list of type names")
            }
            var types: SchemaNode.Types = []
            for name in names {
                guard let one = SchemaNode.Types(name: name) else {
                    throw reader.invalid("type", "null, boolean, integer, number, string, array or object")
                }
                types.insert(one)
            }
            node.types = types
            node.typeNames = names
        }
        if let nullable = try reader.bool("nullable") {
            if dialect == .draft2020_12 {
                warn("nullable is OpenAPI 3.0; OpenAPI 3.1 writes type: [..., \"null\"]; ignored", at: reader.pointer)
            } else if nullable, var types = node.types, !types.contains(.null) {
                // OpenAPI 3.0.4: `nullable` adds null to the types `type` names, and does nothing without `type`.
                types.insert(.null)
                node.types = types
                node.typeNames.append("null")
            }
        }
        if let values = reader.object["enum"] {
            guard case .array(let list) = values else { throw reader.invalid("enum", "a list of values") }
            node.enumValues = list
        }
        if let value = reader.object["const"] {
            note2020("const", at: reader.pointer)
            node.constValue = value
        }
        if let name = try reader.string("format") { node.format = SchemaFormat(rawValue: name) }
        if let example = reader.object["example"] { node.examples.append(example) }
        if dialect == .draft2020_12, case .array(let examples)? = reader.object["examples"] { node.examples += examples }
        if let value = reader.object["default"] { node.examples.append(value) }
    }

    private mutating func readNumbers(_ node: inout SchemaNode, _ reader: KeywordReader) throws(SchemaError) {
        node.minimum = try reader.number("minimum")
        node.maximum = try reader.number("maximum")
        node.exclusiveMinimum = try exclusiveBound("exclusiveMinimum", bound: &node.minimum, reader)
        node.exclusiveMaximum = try exclusiveBound("exclusiveMaximum", bound: &node.maximum, reader)
        if let step = try reader.number("multipleOf") {
            guard step > .integer(0) else { throw reader.invalid("multipleOf", "a number above 0") }
            node.multipleOf = step
        }
    }

    /// `exclusiveMinimum`/`exclusiveMaximum`: OpenAPI 3.0's boolean turns `bound` exclusive; 2020-12's
    /// number is a bound of its own. Each dialect reads the other's form too, with a warning.
    private mutating func exclusiveBound(_ keyword: String, bound: inout SchemaNumber?,
                                         _ reader: KeywordReader) throws(SchemaError) -> SchemaNumber? {
        guard let value = reader.object[keyword] else { return nil }
        switch value {
        case .bool(let exclusive):
            if dialect == .draft2020_12 {
                warn("a boolean \(keyword) is OpenAPI 3.0; read as such", at: reader.pointer)
            }
            guard exclusive, let inclusive = bound else { return nil }
            bound = nil
            return inclusive
        default:
            guard let number = SchemaNumber(value) else { throw reader.invalid(keyword, "a number or a boolean") }
            if dialect == .openAPI30 { warn("a numeric \(keyword) is JSON Schema 2020-12 (OpenAPI 3.1); read as such", at: reader.pointer) }
            return number
        }
    }

    private mutating func readStrings(_ node: inout SchemaNode, _ reader: KeywordReader) throws(SchemaError) {
        node.minLength = try reader.count("minLength")
        node.maxLength = try reader.count("maxLength")
        if let source = try reader.string("pattern") {
            node.pattern = try pattern(source, at: reader.pointer.appending("pattern"))
        }
    }

    private mutating func readArrays(_ node: inout SchemaNode, _ reader: KeywordReader, depth: Int) throws(SchemaError) {
        let pointer = reader.pointer
        if let list = reader.object["prefixItems"] {
            note2020("prefixItems", at: pointer)
            guard case .array(let schemas) = list else { throw reader.invalid("prefixItems", "a list of schemas") }
            node.prefixItems = try subschemas(schemas, at: pointer.appending("prefixItems"), depth: depth)
        }
        switch reader.object["items"] {
        case nil:
            break
        case .array(let schemas)?:
            // Draft 4's tuple form; 2020-12 and OpenAPI 3.0 both write a single schema.
            warn("items as a list is the draft 4 tuple form; read as prefixItems", at: pointer)
            if node.prefixItems.isEmpty {
                node.prefixItems = try subschemas(schemas, at: pointer.appending("items"), depth: depth)
            }
        case let items?:
            node.items = try compile(items, at: pointer.appending("items"), depth: depth + 1)
        }
        if let contains = reader.object["contains"] {
            note2020("contains", at: pointer)
            node.contains = try compile(contains, at: pointer.appending("contains"), depth: depth + 1)
            node.minContains = try reader.count("minContains")
            node.maxContains = try reader.count("maxContains")
        }
        node.minItems = try reader.count("minItems")
        node.maxItems = try reader.count("maxItems")
        node.uniqueItems = try reader.bool("uniqueItems") ?? false
    }

    private mutating func readObjects(_ node: inout SchemaNode, _ reader: KeywordReader, depth: Int) throws(SchemaError) {
        let pointer = reader.pointer
        for (name, schema) in try reader.members("properties") {
            node.properties[name] = try compile(schema, at: pointer.appending("properties").appending(name), depth: depth + 1)
        }
        for (source, schema) in try reader.members("patternProperties") {
            let place = pointer.appending("patternProperties").appending(source)
            node.patternProperties.append((try pattern(source, at: place), try compile(schema, at: place, depth: depth + 1)))
        }
        if let additional = reader.object["additionalProperties"] {
            node.additionalProperties = try compile(additional, at: pointer.appending("additionalProperties"),
                                                    depth: depth + 1, booleanIsNative: true)
        }
        if let required = reader.object["required"] {
            node.required = try reader.names(required, "required")
        }
        for (name, list) in try reader.members("dependentRequired") {
            note2020("dependentRequired", at: pointer)
            node.dependentRequired.append((name, try reader.names(list, "dependentRequired")))
        }
        for (name, schema) in try reader.members("dependentSchemas") {
            note2020("dependentSchemas", at: pointer)
            node.dependentSchemas.append((name, try compile(schema, at: pointer.appending("dependentSchemas").appending(name),
                                                            depth: depth + 1)))
        }
        if let names = reader.object["propertyNames"] {
            note2020("propertyNames", at: pointer)
            node.propertyNames = try compile(names, at: pointer.appending("propertyNames"), depth: depth + 1)
        }
        node.minProperties = try reader.count("minProperties")
        node.maxProperties = try reader.count("maxProperties")
    }

    private mutating func readCombinations(_ node: inout SchemaNode, _ reader: KeywordReader, depth: Int) throws(SchemaError) {
        let pointer = reader.pointer
        for keyword in ["allOf", "anyOf", "oneOf"] {
            guard let list = reader.object[keyword] else { continue }
            guard case .array(let schemas) = list, !schemas.isEmpty else { throw reader.invalid(keyword, "a non-empty list of schemas") }
            let ids = try subschemas(schemas, at: pointer.appending(keyword), depth: depth)
            switch keyword {
            case "allOf": node.allOf = ids
            case "anyOf": node.anyOf = ids
            default: node.oneOf = ids
            }
        }
        if let not = reader.object["not"] {
            node.not = try compile(not, at: pointer.appending("not"), depth: depth + 1)
        }
        if let condition = reader.object["if"] {
            note2020("if", at: pointer)
            node.ifSchema = try compile(condition, at: pointer.appending("if"), depth: depth + 1)
            if let then = reader.object["then"] { node.thenSchema = try compile(then, at: pointer.appending("then"), depth: depth + 1) }
            if let otherwise = reader.object["else"] { node.elseSchema = try compile(otherwise, at: pointer.appending("else"), depth: depth + 1) }
        }
        if let discriminator = reader.object["discriminator"] {
            node.discriminator = try readDiscriminator(discriminator, branches: node.oneOf + node.anyOf, reader)
        }
    }

    /// OpenAPI's `discriminator`: explicit `mapping` entries (a `$ref` or a schema name), then each
    /// branch's `$ref` named by its last pointer token (`#/components/schemas/Dog` is `Dog`).
    private mutating func readDiscriminator(_ value: JSONValue, branches: [SchemaNode.ID],
                                            _ reader: KeywordReader) throws(SchemaError) -> SchemaNode.Discriminator {
        guard case .object(let members) = value, case .string(let propertyName)? = members["propertyName"] else {
            throw reader.invalid("discriminator", "an object with a propertyName")
        }
        var named: [String: SchemaNode.ID] = [:]
        for branch in branches {
            guard let reference = nodes[branch].reference, let name = JSONPointer(reference.text)?.tokens.last else { continue }
            named[name] = named[name] ?? reference.target
        }
        if case .object(let mapping)? = members["mapping"] {
            for name in mapping.keys.sorted() {
                guard case .string(let target) = mapping[name]! else { throw reader.invalid("discriminator", "a mapping of names to $refs") }
                // A bare name is a schema of components/schemas; anything else is a reference.
                let isName = !target.contains("#") && !target.contains("/")
                let reference = isName ? "#/components/schemas/" + target : target
                if let id = try resolve(reference: reference, from: reader.pointer.appending("discriminator")) { named[name] = id }
            }
        }
        return SchemaNode.Discriminator(propertyName: propertyName, branches: named)
    }

    private mutating func subschemas(_ schemas: [JSONValue], at pointer: JSONPointer, depth: Int) throws(SchemaError) -> [SchemaNode.ID] {
        var ids: [SchemaNode.ID] = []
        for (index, schema) in schemas.enumerated() {
            ids.append(try compile(schema, at: pointer.appending(index), depth: depth + 1))
        }
        return ids
    }

    /// The compiled expression for `source`, shared by every place that writes the same one.
    private mutating func pattern(_ source: String, at pointer: JSONPointer) throws(SchemaError) -> SchemaPattern {
        if let known = patterns[source] { return known }
        guard let compiled = SchemaPattern(source) else {
            throw SchemaError(location: pointer.description, reason: .invalidPattern(source))
        }
        patterns[source] = compiled
        return compiled
    }

    // MARK: Warnings

    private mutating func warn(_ message: String, at pointer: JSONPointer) {
        guard warned.insert(message).inserted else { return }
        warnings.append(SchemaWarning(location: pointer.description, message: message))
    }

    /// A 2020-12 keyword met in an OpenAPI 3.0 schema: read anyway, said once.
    private mutating func note2020(_ keyword: String, at pointer: JSONPointer) {
        guard dialect == .openAPI30 else { return }
        warn("\(keyword) is JSON Schema 2020-12 (OpenAPI 3.1); read as such", at: pointer)
    }

    // MARK: Loops

    /// Refuses a cycle of in-place subschemas (`$ref`, `allOf`, `not`, ...) that never moves into a
    /// member or an element of the value: checking it would never end. Names a `$ref` on the cycle.
    private func refuseLoops(from root: SchemaNode.ID) throws(SchemaError) {
        enum Mark { case unvisited, open, done }
        var marks = [Mark](repeating: .unvisited, count: nodes.count)
        let successors = nodes.map(\.inPlaceSubschemas)
        for start in [root] + Array(nodes.indices) where marks[start] == .unvisited {
            // Depth-first, with an explicit stack of (node, next successor to visit).
            var stack: [(node: SchemaNode.ID, next: Int)] = [(start, 0)]
            marks[start] = .open
            while let top = stack.last {
                let next = successors[top.node].dropFirst(top.next).first
                guard let child = next else {
                    marks[top.node] = .done
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                switch marks[child] {
                case .unvisited:
                    marks[child] = .open
                    stack.append((child, 0))
                case .open:
                    let cycle = stack.drop { $0.node != child }.map(\.node) + [child]
                    throw loopError(along: cycle)
                case .done:
                    break
                }
            }
        }
    }

    /// The error for an in-place cycle (its first node repeated at the end), at its first `$ref`.
    private func loopError(along cycle: [SchemaNode.ID]) -> SchemaError {
        for (from, to) in zip(cycle, cycle.dropFirst()) {
            if let reference = nodes[from].reference, reference.target == to {
                return SchemaError(location: nodes[from].location.description, reason: .circularReference(reference.text))
            }
        }
        // A discriminator mapping is the only other way back.
        let first = nodes[cycle[0]]
        return SchemaError(location: first.location.description, reason: .circularReference(nodes[cycle[1]].location.description))
    }
}

extension SchemaCompiler {
    /// Reads keyword values of one schema object, throwing ``SchemaError`` with the keyword's place
    /// when a value has the wrong form.
    fileprivate struct KeywordReader {
        let object: [String: JSONValue]
        let pointer: JSONPointer

        func invalid(_ keyword: String, _ expected: String) -> SchemaError {
            SchemaError(location: pointer.appending(keyword).description, reason: .invalidKeyword(keyword, expected: expected))
        }

        func string(_ keyword: String) throws(SchemaError) -> String? {
            guard let value = object[keyword] else { return nil }
            guard case .string(let text) = value else { throw invalid(keyword, "a string") }
            return text
        }

        func bool(_ keyword: String) throws(SchemaError) -> Bool? {
            guard let value = object[keyword] else { return nil }
            guard case .bool(let flag) = value else { throw invalid(keyword, "true or false") }
            return flag
        }

        func number(_ keyword: String) throws(SchemaError) -> SchemaNumber? {
            guard let value = object[keyword] else { return nil }
            guard let number = SchemaNumber(value) else { throw invalid(keyword, "a number") }
            return number
        }

        /// A count such as `minLength`: a whole number, 0 or more (`2.0` counts; huge ones are capped).
        func count(_ keyword: String) throws(SchemaError) -> Int? {
            guard let value = object[keyword] else { return nil }
            guard let number = SchemaNumber(value), number.isIntegral, number >= .integer(0) else {
                throw invalid(keyword, "a whole number, 0 or more")
            }
            if case .integer(let integer) = number { return Int(integer) }
            return number.doubleValue >= Double(Int.max) ? Int.max : Int(number.doubleValue)
        }

        /// The members of an object-valued keyword (`properties`), sorted by name so compiling is deterministic.
        func members(_ keyword: String) throws(SchemaError) -> [(String, JSONValue)] {
            guard let value = object[keyword] else { return [] }
            guard case .object(let members) = value else { throw invalid(keyword, "an object") }
            return members.keys.sorted().map { ($0, members[$0]!) }
        }

        /// A list of property names (`required`).
        func names(_ value: JSONValue, _ keyword: String) throws(SchemaError) -> [String] {
            guard case .array(let list) = value else { throw invalid(keyword, "a list of property names") }
            return try list.map { (entry) throws(SchemaError) -> String in
                guard case .string(let name) = entry else { throw invalid(keyword, "a list of property names") }
                return name
            }
        }
    }
}
