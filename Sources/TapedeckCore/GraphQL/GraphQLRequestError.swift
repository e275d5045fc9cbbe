#if GraphQL
internal import GraphQL

/// Why a GraphQL request's query has no canonical operation: the document does not parse, nests too
/// deep, or does not say which of its operations to run. A matcher then falls back to matching the
/// body, and its diagnosis prints this error (`the query does not parse: line 1, column 8: Unexpected )`).
public enum GraphQLRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The parser refused the document; line and column are 1-based, the column counted in Unicode
    /// scalars, and `message` is the parser's own (`Expected Name, found <EOF>`).
    case unparsable(line: Int, column: Int, message: String)
    /// The document opens more than `limit` braces, brackets and parentheses inside one another; it
    /// is refused before parsing (``GraphQLOperation/maximumNestingDepth``). The place is the first
    /// bracket past the limit.
    case tooDeep(limit: Int, line: Int, column: Int)
    /// The document holds fragments but no operation.
    case noOperation
    /// `operationName` names no operation of the document; `available` are the names it has.
    case unknownOperation(name: String, available: [String])
    /// The document holds several operations and the request names none (`available`: their names,
    /// `(anonymous)` for one without).
    case ambiguousOperation(available: [String])
    /// The document defines the chosen operation, or a fragment it uses, more than once
    /// (`definition`: `operation GetUser`, `fragment UserFields`).
    case duplicateDefinition(String)

    public var description: String {
        switch self {
        case let .unparsable(line, column, message):
            return "the query does not parse: line \(line), column \(column): \(message)"
        case let .tooDeep(limit, line, column):
            return "the query nests more than \(limit) braces, brackets and parentheses deep (line \(line), column \(column)); "
                + "it is not parsed"
        case .noOperation:
            return "the query document holds no operation, only fragments"
        case let .unknownOperation(name, available):
            return "the query document has no operation named \"\(name)\" (it has \(Self.list(available)))"
        case .ambiguousOperation(let available):
            return "the query document has several operations (\(Self.list(available))) and the request names none in operationName"
        case .duplicateDefinition(let definition):
            return "the query document defines \(definition) more than once"
        }
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    /// The error for what the parser threw while reading `source`: its place recomputed from the
    /// byte offset it reports (its own line and column mix UTF-8 and UTF-16 offsets), and its
    /// message without the `Syntax Error GraphQL (1:8)` prefix and the source excerpt it appends.
    init(parserError error: any Error, source: String) {
        guard let error = error as? GraphQLError else {
            self = .unparsable(line: 1, column: 1, message: "\(error)")
            return
        }
        let (line, column) = error.positions.first.map { Self.place(ofUTF8Offset: $0, in: source) } ?? (1, 1)
        self = .unparsable(line: line, column: column, message: Self.parserMessage(error.message))
    }

    /// `Syntax Error GraphQL (1:8) Unexpected )\n\n 1: { a(x: ) }\n ...` without prefix and excerpt.
    private static func parserMessage(_ message: String) -> String {
        var text = Substring(message)
        if let excerpt = text.firstRange(of: "\n\n") { text = text[..<excerpt.lowerBound] }
        if text.hasPrefix("Syntax Error "), let place = text.firstRange(of: ") ") { text = text[place.upperBound...] }
        // A bad `\u` escape's message prints a Swift debug value (`\uUTF8View(_slice: ...)`): cut it.
        if let debugValue = text.firstRange(of: ": \\uUTF8View(") { text = text[..<debugValue.lowerBound] }
        return String(text)
    }

    /// The 1-based line and column (in Unicode scalars) of a UTF-8 offset: `\n`, `\r\n` and `\r`
    /// each end a line, as the GraphQL grammar says.
    static func place(ofUTF8Offset offset: Int, in source: String) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var consumed = 0
        var afterCarriageReturn = false
        for scalar in source.unicodeScalars {
            if consumed >= offset { break }
            consumed += UTF8.width(scalar)
            switch scalar {
            case "\n" where afterCarriageReturn:
                afterCarriageReturn = false
            case "\n", "\r":
                line += 1
                column = 1
                afterCarriageReturn = scalar == "\r"
            default:
                column += 1
                afterCarriageReturn = false
            }
        }
        return (line, column)
    }
}
#endif
