#if GraphQL
internal import GraphQL

/// Prints a parsed operation, and then the fragments it uses, in canonical form on one line:
/// `query GetUser($id: ID!) { user(id: $id, role: ADMIN) @cached(ttl: 60) { name ...Fields } }`.
///
/// Sorted, because their order says nothing: the arguments of every field and directive and the
/// fields of every input object (by name; a name given twice, which validation refuses, by value
/// next), and an operation's variable definitions. Kept in order, because they shape the answer:
/// selections, aliases, directives, list items. Block strings print as ordinary strings of the
/// same value, and an anonymous query with its `query` keyword.
///
/// Not GraphQLSwift's `print(ast:)`: it indents every line by its depth, one pass per level, so a
/// 1 MB document nested 60 deep printed to 42 MB in 40 s. This prints in one pass, about as long as
/// the document, and recurses once per level, which ``GraphQLNestingScan`` bounds before parsing.
struct GraphQLCanonicalPrinter {
    /// The fragments spread by everything printed so far, each once, in the order met.
    private(set) var spreadFragments: [String] = []
    private var spread: Set<String> = []

    /// `query Name($a: Int = 1) @directive { ... }`.
    mutating func operation(_ operation: OperationDefinition) -> String {
        var text = operation.operation.rawValue
        if let name = operation.name { text += " " + name.value }
        let variables = operation.variableDefinitions.map { (name: $0.variable.name.value, text: variableDefinition($0)) }
        if !variables.isEmpty { text += "(" + Self.sorted(variables).joined(separator: ", ") + ")" }
        directives(operation.directives, into: &text)
        selectionSet(operation.selectionSet, into: &text)
        return text
    }

    /// `fragment Name on Type @directive { ... }`.
    mutating func fragment(_ fragment: FragmentDefinition) -> String {
        var text = "fragment " + fragment.name.value + " on " + fragment.typeCondition.name.value
        directives(fragment.directives, into: &text)
        selectionSet(fragment.selectionSet, into: &text)
        return text
    }

    private func variableDefinition(_ definition: VariableDefinition) -> String {
        var text = "$" + definition.variable.name.value + ": "
        type(definition.type, into: &text)
        if let defaultValue = definition.defaultValue {
            text += " = "
            value(defaultValue, into: &text)
        }
        directives(definition.directives, into: &text)
        return text
    }

    /// ` { a b(x: 1) ...F }`, with its leading space.
    private mutating func selectionSet(_ set: SelectionSet, into text: inout String) {
        text += " {"
        for selection in set.selections {
            text += " "
            switch selection {
            case let field as Field:
                if let alias = field.alias { text += alias.value + ": " }
                text += field.name.value
                arguments(field.arguments, into: &text)
                directives(field.directives, into: &text)
                if let nested = field.selectionSet { selectionSet(nested, into: &text) }
            case let fragmentSpread as FragmentSpread:
                text += "..." + fragmentSpread.name.value
                directives(fragmentSpread.directives, into: &text)
                if spread.insert(fragmentSpread.name.value).inserted { spreadFragments.append(fragmentSpread.name.value) }
            case let inline as InlineFragment:
                text += "..."
                if let condition = inline.typeCondition { text += " on " + condition.name.value }
                directives(inline.directives, into: &text)
                selectionSet(inline.selectionSet, into: &text)
            default:
                text += print(ast: selection)
            }
        }
        text += " }"
    }

    /// `(a: 1, b: 2)`, sorted; nothing when there are none.
    private func arguments(_ arguments: [Argument], into text: inout String) {
        guard !arguments.isEmpty else { return }
        let printed = arguments.map { (name: $0.name.value, text: $0.name.value + ": " + value($0.value)) }
        text += "(" + Self.sorted(printed).joined(separator: ", ") + ")"
    }

    /// ` @a(x: 1) @b`, in their order, each with its arguments sorted.
    private func directives(_ directives: [Directive], into text: inout String) {
        for directive in directives {
            text += " @" + directive.name.value
            arguments(directive.arguments, into: &text)
        }
    }

    private func value(_ value: any Value) -> String {
        var text = ""
        self.value(value, into: &text)
        return text
    }

    private func value(_ value: any Value, into text: inout String) {
        switch value {
        case let variable as Variable:
            text += "$" + variable.name.value
        case let number as IntValue:
            text += number.value
        case let number as FloatValue:
            text += number.value
        case let string as StringValue:
            Self.quoted(string.value, into: &text)
        case let boolean as BooleanValue:
            text += boolean.value ? "true" : "false"
        case is NullValue:
            text += "null"
        case let enumValue as EnumValue:
            text += enumValue.value
        case let list as ListValue:
            text += "[" + list.values.map { self.value($0) }.joined(separator: ", ") + "]"
        case let object as ObjectValue:
            let fields = object.fields.map { (name: $0.name.value, text: $0.name.value + ": " + self.value($0.value)) }
            text += "{" + Self.sorted(fields).joined(separator: ", ") + "}"
        default:
            text += print(ast: value)
        }
    }

    private func type(_ type: any GraphQL.`Type`, into text: inout String) {
        switch type {
        case let named as NamedType:
            text += named.name.value
        case let list as ListType:
            text += "["
            self.type(list.type, into: &text)
            text += "]"
        case let nonNull as NonNullType:
            self.type(nonNull.type, into: &text)
            text += "!"
        default:
            text += print(ast: type)
        }
    }

    /// The printed items, by name and then by their whole text.
    private static func sorted(_ items: [(name: String, text: String)]) -> [String] {
        items.sorted { $0.name != $1.name ? $0.name < $1.name : $0.text < $1.text }.map(\.text)
    }

    /// A string literal: `"`, `\` and control characters escaped, everything else as it is.
    private static func quoted(_ value: String, into text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}"..."\u{9F}":
                let hex = String(scalar.value, radix: 16, uppercase: true)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
#endif
