/// Builds sample values for the nodes of a compiled schema (see ``SchemaSample``).
///
/// For each place: the schema's own `example`/`examples`/`default`, `const` or `enum` when one
/// is valid; otherwise a value made from the merged constraints (``SampleFacts``), checked against
/// the schema and, when it fails (a `not`, a `oneOf` two branches satisfy, a pattern beyond
/// ``PatternSampler``), made again with other choices a few times. Retries are paid from a budget,
/// so a schema that cannot be satisfied costs bounded time and gives a best effort.
struct SampleBuilder {
    /// How deeply generated values nest; deeper, only empty containers and plain scalars are made.
    static let maximumDepth = 24
    /// Below this depth every declared property and one array element are shown (on the first
    /// attempts); deeper, only what is required, so recursive schemas stay small.
    static let generousDepth = 3
    static let attempts = 6

    let nodes: [SchemaNode]
    let assertsFormats: Bool
    let seed: UInt64
    var random: SampleRandom
    /// Values built so far may still retry while this stays positive.
    private var budget = 4_000

    init(schema: JSONSchema, seed: UInt64) {
        nodes = schema.nodes
        assertsFormats = schema.assertsFormats
        self.seed = seed
        random = SampleRandom(seed: seed)
    }

    /// A value every node of `ids` accepts when one can be found; `variant` makes siblings differ
    /// (the elements of a `uniqueItems` array).
    mutating func value(for ids: [SchemaNode.ID], depth: Int, variant: Int = 0) -> JSONValue {
        budget -= 1
        guard !ids.isEmpty else { return .string(word(variant: variant)) }
        var facts = SampleFacts()
        for id in ids { facts.merge(id, from: nodes) }
        for offered in offeredValues(facts, variant: variant) where accepts(ids, offered) {
            return offered
        }
        var last = JSONValue.null
        for attempt in 0..<Self.attempts {
            var decided = facts
            decideChoices(&decided, attempt: attempt)
            let candidate = build(decided, depth: depth, variant: variant, attempt: attempt)
            if accepts(ids, candidate) { return candidate }
            last = candidate
            if budget <= 0 { break }
        }
        return last
    }

    /// Whether every node of `ids` accepts `value`.
    private func accepts(_ ids: [SchemaNode.ID], _ value: JSONValue) -> Bool {
        ids.allSatisfy { id in
            var validator = SchemaValidator(nodes: nodes, assertsFormats: assertsFormats, limit: 1)
            return validator.check(id, value)
        }
    }

    /// The values the schema itself offers, in order: examples and defaults, `const`, then `enum`
    /// (starting at a place the seed and variant choose).
    private mutating func offeredValues(_ facts: SampleFacts, variant: Int) -> [JSONValue] {
        var offered = rotated(facts.examples, by: variant)
        if let constant = facts.constValue { offered.append(constant) }
        if let values = facts.enumValues { offered += rotated(values, by: variant) }
        return offered
    }

    private mutating func rotated(_ values: [JSONValue], by variant: Int) -> [JSONValue] {
        guard !values.isEmpty else { return [] }
        let start = (variant + (seed == 0 ? 0 : random.below(values.count))) % values.count
        return Array(values[start...] + values[..<start])
    }

    /// Picks a branch of every `anyOf`/`oneOf` (the first on the first attempt, then the next ones)
    /// and merges it in; a discriminator's property is fixed to the chosen branch's name.
    private func decideChoices(_ facts: inout SampleFacts, attempt: Int) {
        var decided = 0
        while !facts.choices.isEmpty, decided < 64 {
            let choice = facts.choices.removeFirst()
            let branch = choice.branches[(attempt + decided) % choice.branches.count]
            decided += 1
            if let discriminator = choice.discriminator {
                let target = nodes[branch].reference?.target
                let names = discriminator.branches.filter { $0.value == branch || $0.value == target }.keys.sorted()
                if let name = names.first { facts.fixedProperties[discriminator.propertyName] = .string(name) }
            }
            facts.merge(branch, from: nodes)
        }
    }

    // MARK: Values by type

    private mutating func build(_ facts: SampleFacts, depth: Int, variant: Int, attempt: Int) -> JSONValue {
        if facts.isImpossible { return .null }
        if let constant = facts.constValue { return constant }
        if let values = facts.enumValues, !values.isEmpty { return values[(variant + attempt) % values.count] }
        switch chosenType(facts, attempt: attempt) {
        case .object: return object(facts, depth: depth, variant: variant, generous: isGenerous(depth, attempt))
        case .array: return array(facts, depth: depth, variant: variant, generous: isGenerous(depth, attempt))
        case .string: return .string(string(facts, variant: variant))
        case .integer: return integer(facts, variant: variant)
        case .number: return number(facts, variant: variant)
        case .boolean: return .bool((random.below(2) + variant) % 2 == 0)
        default: return .null
        }
    }

    /// The type to make: the first listed that is not null (null only when it is all there is), or,
    /// without `type`, the one the other keywords suggest. Later attempts try the other types.
    private func chosenType(_ facts: SampleFacts, attempt: Int) -> SchemaNode.Types {
        var candidates: [SchemaNode.Types]
        if let types = facts.types {
            let listed = facts.typeNames.compactMap(SchemaNode.Types.init(name:)).filter(types.contains)
            let integerOnly = types.contains(.integer) && !listed.contains(.integer) ? [SchemaNode.Types.integer] : []
            candidates = (listed + integerOnly).filter { $0 != .null } + (types.contains(.null) ? [.null] : [])
        } else {
            candidates = [suggestedType(facts), .string, .integer, .object, .array, .boolean, .null]
        }
        guard !candidates.isEmpty else { return .null }
        return candidates[attempt % candidates.count]
    }

    private func suggestedType(_ facts: SampleFacts) -> SchemaNode.Types {
        if !facts.properties.isEmpty || !facts.required.isEmpty || !facts.fixedProperties.isEmpty
            || facts.minProperties != nil || facts.maxProperties != nil || !facts.additionalProperties.isEmpty {
            return .object
        }
        if !facts.items.isEmpty || !facts.prefixItems.isEmpty || !facts.contains.isEmpty || facts.minItems != nil || facts.maxItems != nil {
            return .array
        }
        if facts.format == .int32 || facts.format == .int64 { return .integer }
        if facts.format != nil || !facts.patterns.isEmpty || facts.minLength != nil || facts.maxLength != nil { return .string }
        if facts.lower != nil || facts.upper != nil || !facts.multiplesOf.isEmpty { return .number }
        return .string
    }

    /// Whether to show optional properties and an element: near the top, on the first attempts
    /// (an optional property may be what breaks the value).
    private func isGenerous(_ depth: Int, _ attempt: Int) -> Bool {
        depth < Self.generousDepth && attempt < 2
    }

    private mutating func object(_ facts: SampleFacts, depth: Int, variant: Int, generous: Bool) -> JSONValue {
        let maximum = facts.maxProperties ?? Int.max
        let minimum = min(facts.minProperties ?? 0, 1_000)
        // The required properties (and what they require); then optional ones, near the top or to
        // reach minProperties, each with what it requires, while they fit under maxProperties.
        var names = Self.adding(facts.required, to: [], facts)
        for name in facts.properties.keys.sorted() where !names.contains(name) && (generous || names.count < minimum) {
            let more = Self.adding([name], to: names, facts)
            if more.count <= maximum { names = more }
        }
        for name in facts.fixedProperties.keys.sorted() where !names.contains(name) {
            names.append(name)
        }
        // Still too few: invented names, where other properties are allowed.
        var extra = 1
        while names.count < min(minimum, maximum), extra <= 2 * minimum + 1 {
            let name = "property\(extra)"
            extra += 1
            if !names.contains(name), schemas(forProperty: name, facts) != nil { names.append(name) }
        }

        var members: [String: JSONValue] = [:]
        for name in names {
            if let fixed = facts.fixedProperties[name] {
                members[name] = fixed
            } else if let schemas = schemas(forProperty: name, facts) {
                members[name] = depth >= Self.maximumDepth ? .null : value(for: schemas, depth: depth + 1, variant: variant)
            }
        }
        return .object(members)
    }

    /// `names` with `added` and every property they require (`dependentRequired`), in order.
    private static func adding(_ added: [String], to names: [String], _ facts: SampleFacts) -> [String] {
        var result = names
        var waiting = added
        while !waiting.isEmpty, result.count < 1_000 {
            let name = waiting.removeFirst()
            guard !result.contains(name) else { continue }
            result.append(name)
            for (property, needed) in facts.dependentRequired where property == name { waiting += needed }
        }
        return result
    }

    /// The schemas a property's value must satisfy; nil when no property of that name is allowed.
    private func schemas(forProperty name: String, _ facts: SampleFacts) -> [SchemaNode.ID]? {
        var schemas = facts.properties[name] ?? []
        var declared = facts.properties[name] != nil
        for (pattern, schema) in facts.patternProperties where pattern.matches(name) {
            schemas.append(schema)
            declared = true
        }
        if declared { return schemas }
        return facts.forbidsAdditionalProperties ? nil : facts.additionalProperties
    }

    private mutating func array(_ facts: SampleFacts, depth: Int, variant: Int, generous: Bool) -> JSONValue {
        var count = facts.minItems ?? 0
        if generous { count = max(count, facts.prefixItems.count, 1) }
        let containing = facts.contains.isEmpty ? 0 : (facts.minContains ?? 1)
        count = max(count, containing)
        var maximum = facts.maxItems ?? Int.max
        if facts.forbidsMoreItems { maximum = min(maximum, facts.prefixItems.count) }
        count = min(count, maximum, 1_000)
        guard depth < Self.maximumDepth else { return .array([]) }

        var elements: [JSONValue] = []
        for index in 0..<count {
            var schemas = index < facts.prefixItems.count ? facts.prefixItems[index] : facts.items
            if index < containing { schemas += facts.contains }
            let base = facts.uniqueItems ? variant &* 31 &+ index : variant
            var element = value(for: schemas, depth: depth + 1, variant: base)
            // Unique items: other variants until this one differs from the earlier ones.
            var retry = 1
            while facts.uniqueItems, elements.contains(element), retry <= 8 {
                element = value(for: schemas, depth: depth + 1, variant: base &+ retry &* 1_000)
                retry += 1
            }
            elements.append(element)
        }
        return .array(elements)
    }

    private mutating func string(_ facts: SampleFacts, variant: Int) -> String {
        if let format = facts.format, let formatted = formatted(format, variant: variant) { return formatted }
        if let pattern = facts.patterns.first { return matching(pattern, facts, variant: variant) }
        return fitted(word(variant: variant), facts)
    }

    /// A plain word (`string`, `sample-3`), the variant appended when there is one.
    private mutating func word(variant: Int) -> String {
        let words = ["string", "example", "sample", "value"]
        let base = words[seed == 0 ? 0 : random.below(words.count)]
        return variant == 0 ? base : "\(base)-\(variant)"
    }

    /// `text` padded or cut to the length bounds.
    private func fitted(_ text: String, _ facts: SampleFacts) -> String {
        var scalars = Array(text.unicodeScalars)
        let filler = Array("abcdefghijklmnopqrstuvwxyz".unicodeScalars)
        let minimum = min(facts.minLength ?? 0, 100_000)
        while scalars.count < minimum { scalars.append(filler[scalars.count % filler.count]) }
        if let maximum = facts.maxLength, scalars.count > maximum { scalars = Array(scalars.prefix(maximum)) }
        return String(String.UnicodeScalarView(scalars))
    }

    /// A string the pattern (and every other pattern and the length bounds) accepts, made by
    /// ``PatternSampler`` with growing repetition; for patterns it cannot read, the first of a few
    /// plain strings that happens to match. Best effort: the last try is returned if none fits.
    private mutating func matching(_ pattern: SchemaPattern, _ facts: SampleFacts, variant: Int) -> String {
        let fits = { (text: String) -> Bool in
            let length = text.unicodeScalars.count
            return length >= (facts.minLength ?? 0) && length <= (facts.maxLength ?? Int.max)
                && facts.patterns.allSatisfy { $0.matches(text) }
        }
        var last = word(variant: variant)
        if let sampler = PatternSampler(pattern.source) {
            for extra in [0, 1, 2, 3, 5, 8, 13, 21, 34, facts.minLength ?? 0] {
                guard var text = sampler.sample(&random, extra: extra + variant % 3) else { continue }
                let short = (facts.minLength ?? 0) - text.unicodeScalars.count
                if short > 0 && short < 100_000 {
                    let padding = String(repeating: "x", count: short)
                    if !sampler.isAnchoredAtEnd { text += padding } else if !sampler.isAnchoredAtStart { text = padding + text }
                }
                if fits(text) { return text }
                last = text
            }
        }
        let plain = ["string", "a", "A", "0", "abc", "ABC", "123", "a1", "example", "Example1", "x-1", "_"]
        return plain.first(where: fits) ?? last
    }

    /// A valid value of a string format, varied by the seed and the variant; nil for formats that
    /// are not about strings.
    private mutating func formatted(_ format: SchemaFormat, variant: Int) -> String? {
        let number = random.below(1_000) + variant
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let date = "\(2020 + number % 10)-\(two(1 + number % 12))-\(two(1 + number % 28))"
        let time = "\(two(number % 24)):\(two(number % 60)):\(two((number / 7) % 60))Z"
        switch format {
        case .dateTime: return "\(date)T\(time)"
        case .date: return date
        case .time: return time
        case .email: return "user\(number)@example.com"
        case .uuid:
            let hex = (0..<4).map { _ in String(random.next() & 0xFFFF_FFFF, radix: 16) }
                .map { String(repeating: "0", count: 8 - $0.count) + $0 }.joined()
            let digits = Array(hex)
            // Version 4, RFC 4122 variant.
            return [String(digits[0..<8]), String(digits[8..<12]), "4" + String(digits[13..<16]),
                    "8" + String(digits[17..<20]), String(digits[20..<32])].joined(separator: "-")
        case .uri: return "https://example.com/items/\(number)"
        case .ipv4: return "192.0.2.\(1 + number % 254)"
        case .ipv6: return "2001:db8::\(String(1 + number % 0xFFFE, radix: 16))"
        case .int32, .int64: return nil
        }
    }

    private mutating func integer(_ facts: SampleFacts, variant: Int) -> JSONValue {
        var low = facts.lower.flatMap { Self.integer(atLeast: $0.bound, exclusive: $0.exclusive) }
        var high = facts.upper.flatMap { Self.integer(atMost: $0.bound, exclusive: $0.exclusive) }
        if facts.format == .int32 {
            low = max(low ?? Int64(Int32.min), Int64(Int32.min))
            high = min(high ?? Int64(Int32.max), Int64(Int32.max))
        }
        let pick = Int64(random.below(100) + variant % 1_000)
        var target: Int64
        switch (low, high) {
        case let (low?, high?):
            let span = high.subtractingReportingOverflow(low)
            target = span.overflow ? low : low &+ pick % (min(span.partialValue, 1_000) &+ 1)
        case let (low?, nil): target = low.addingReportingOverflow(pick).overflow ? low : low + pick
        case let (nil, high?): target = high.subtractingReportingOverflow(pick).overflow ? high : high - pick
        case (nil, nil): target = pick
        }
        if let step = Self.integerStep(facts.multiplesOf), step > 1 {
            target = Self.multiple(of: step, atLeast: target) ?? target
            if let high, target > high { target = Self.multiple(of: step, atMost: high) ?? target }
        }
        return .integer(target)
    }

    /// The least whole number above (or at) a bound; nil when none fits in 64 bits.
    private static func integer(atLeast bound: SchemaNumber, exclusive: Bool) -> Int64? {
        switch bound {
        case .integer(let value): return exclusive ? (value == .max ? nil : value + 1) : value
        case .double(let value):
            let up = value.rounded(.up)
            let least = exclusive && up == value ? up + 1 : up
            return least < 9.2e18 ? Int64(max(least, -9.2e18)) : nil
        }
    }

    /// The greatest whole number below (or at) a bound; nil when none fits in 64 bits.
    private static func integer(atMost bound: SchemaNumber, exclusive: Bool) -> Int64? {
        switch bound {
        case .integer(let value): return exclusive ? (value == .min ? nil : value - 1) : value
        case .double(let value):
            let down = value.rounded(.down)
            let greatest = exclusive && down == value ? down - 1 : down
            return greatest > -9.2e18 ? Int64(min(greatest, 9.2e18)) : nil
        }
    }

    /// The least positive whole number that is a multiple of every step (for `0.5`, any whole
    /// number; for `1.5`, 3); nil when there is none small enough to use.
    private static func integerStep(_ steps: [SchemaNumber]) -> Int64? {
        var combined: Int64 = 1
        for step in steps {
            guard let whole = (1...1_000).lazy.map({ step.doubleValue * Double($0) }).first(where: { $0.rounded() == $0 }),
                  whole < 1e12 else { return nil }
            let value = Int64(whole)
            let product = (combined / gcd(combined, value)).multipliedReportingOverflow(by: value)
            guard !product.overflow else { return nil }
            combined = product.partialValue
        }
        return combined
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        b == 0 ? Swift.abs(a) : gcd(b, a % b)
    }

    private static func multiple(of step: Int64, atLeast value: Int64) -> Int64? {
        let remainder = value % step
        if remainder == 0 { return value }
        let result = value.addingReportingOverflow(remainder > 0 ? step - remainder : -remainder)
        return result.overflow ? nil : result.partialValue
    }

    private static func multiple(of step: Int64, atMost value: Int64) -> Int64? {
        let remainder = value % step
        if remainder == 0 { return value }
        let result = value.subtractingReportingOverflow(remainder > 0 ? remainder : step + remainder)
        return result.overflow ? nil : result.partialValue
    }

    private mutating func number(_ facts: SampleFacts, variant: Int) -> JSONValue {
        let low = facts.lower.map { (value: $0.bound.doubleValue, exclusive: $0.exclusive) }
        let high = facts.upper.map { (value: $0.bound.doubleValue, exclusive: $0.exclusive) }
        let pick = Double(random.below(100) + variant % 1_000)
        if let step = facts.multiplesOf.first?.doubleValue {
            // The multiple nearest above the lower bound (or near zero), kept under the upper bound.
            var count = low.map { bound -> Double in
                let least = (bound.value / step).rounded(.up)
                return bound.exclusive && least * step <= bound.value ? least + 1 : least
            } ?? (high.map { ($0.value / step).rounded(.down) - pick } ?? pick)
            if let high {
                let most = (high.value / step).rounded(.down)
                count = min(count, high.exclusive && most * step >= high.value ? most - 1 : most)
            }
            return Self.json(count * step)
        }
        let value: Double
        switch (low, high) {
        case let (low?, high?):
            // Inside the range, rounded to something short when that stays inside.
            let fractions = [0.5, 0.25, 0.75, 0.125, 0.875]
            let inside = low.value + (high.value - low.value) * fractions[variant % fractions.count]
            let rounded = [inside.rounded(), (inside * 10).rounded() / 10, (inside * 100).rounded() / 100]
                .first { candidate in
                    (low.exclusive ? candidate > low.value : candidate >= low.value)
                        && (high.exclusive ? candidate < high.value : candidate <= high.value)
                }
            value = rounded ?? inside
        case let (low?, nil): value = low.value.rounded(.down) + 1 + pick + 0.5
        case let (nil, high?): value = high.value.rounded(.up) - 1 - pick - 0.5
        case (nil, nil): value = pick + 0.5
        }
        return Self.json(value)
    }

    /// A double as JSON, without a fraction when it is whole.
    private static func json(_ value: Double) -> JSONValue {
        if let integer = Int64(exactly: value) { return .integer(integer) }
        return value.isFinite ? .double(value) : .integer(0)
    }
}
