#if GraphQL
internal import GraphQL

/// The operation a GraphQL request runs, in canonical form: what two requests must share to be the
/// same operation, however their clients wrote the query.
///
/// The query document is parsed (GraphQLSwift), the operation chosen (the one `operationName`
/// names, or the only one), and printed on one line with the fragments it uses
/// (`GraphQLCanonicalPrinter`), so that whitespace, commas, comments, the order of arguments (of
/// fields and directives, at any depth), of input object fields, of variable definitions, and of
/// the operations and fragments in the document make no difference, nor how a string is written
/// (block or quoted, escaped or not); other operations, unused fragments and type definitions are
/// left out. Fields, aliases, directives and the order of each make a difference: they shape the
/// answer.
///
/// ```swift
/// let operation = try GraphQLOperation(document: "query GetUser($id: ID!) { user(id: $id) { name } }")
/// operation.name        // "GetUser"
/// operation.key         // SHA-256 hex of operation.canonicalText
/// ```
public struct GraphQLOperation: Sendable, Hashable {
    /// Which of the three kinds of operation.
    public enum OperationType: String, Sendable, Hashable {
        /// A read.
        case query
        /// A write.
        case mutation
        /// A stream of events (over WebSocket, `graphql-transport-ws`).
        case subscription
    }

    /// How many braces, brackets and parentheses may stand open inside one another: a deeper
    /// document is refused before parsing (``GraphQLRequestError/tooDeep(limit:line:column:)``),
    /// as GraphQLSwift's parser recurses once per level (10,000 levels overflow the stack). Real
    /// queries nest far less: graphql-core's introspection query, 10 levels.
    public static let maximumNestingDepth = 64

    /// Query, mutation or subscription.
    public let operationType: OperationType
    /// The operation's name; nil for an anonymous one.
    public let name: String?
    /// The chosen operation printed canonically on one line, followed by the fragments it uses
    /// (directly or through other fragments) sorted by name, each after a space:
    /// `query GetUser($id: ID!) { user(id: $id) { ...UserFields } } fragment UserFields on User { name }`.
    public let canonicalText: String
    /// The SHA-256 of ``canonicalText`` in lowercase hexadecimal: equal for two requests exactly
    /// when they run the same operation.
    public let key: String

    /// Parses `document` and takes the operation `operationName` names (nil or empty: the only one).
    public init(document: String, operationName: String? = nil) throws(GraphQLRequestError) {
        let scan = GraphQLNestingScan(limit: Self.maximumNestingDepth)
        if let place = scan.firstExcess(in: document) {
            throw .tooDeep(limit: Self.maximumNestingDepth, line: place.line, column: place.column)
        }
        let parsed: Document
        do {
            parsed = try parse(source: document, noLocation: true)
        } catch {
            throw GraphQLRequestError(parserError: error, source: document)
        }
        let chosen = try Self.choose(operationName, in: parsed)
        let canonical = try Self.canonicalText(of: chosen, in: parsed)
        operationType = OperationType(chosen.operation)
        name = chosen.name?.value
        canonicalText = canonical
        key = SHA256.hash(Array(canonical.utf8)).hexadecimal
    }

    /// The operation `operationName` names, or the document's only one.
    private static func choose(_ operationName: String?, in document: Document) throws(GraphQLRequestError) -> OperationDefinition {
        let operations = document.definitions.compactMap { $0 as? OperationDefinition }
        let names = operations.map { $0.name?.value ?? "(anonymous)" }
        guard let operationName, !operationName.isEmpty else {
            guard let only = operations.first else { throw .noOperation }
            guard operations.count == 1 else { throw .ambiguousOperation(available: names) }
            return only
        }
        let named = operations.filter { $0.name?.value == operationName }
        guard let chosen = named.first else { throw .unknownOperation(name: operationName, available: names) }
        guard named.count == 1 else { throw .duplicateDefinition("operation \(operationName)") }
        return chosen
    }

    /// `operation` printed canonically, then the fragments it spreads, directly or through other
    /// fragments, sorted by name; a spread of a fragment the document does not define is left for
    /// the server to refuse.
    private static func canonicalText(of operation: OperationDefinition, in document: Document) throws(GraphQLRequestError) -> String {
        var defined: [String: [FragmentDefinition]] = [:]
        for case let fragment as FragmentDefinition in document.definitions {
            defined[fragment.name.value, default: []].append(fragment)
        }
        var printer = GraphQLCanonicalPrinter()
        let operationText = printer.operation(operation)
        var fragments: [String: String] = [:]
        // Printing a fragment may add to `spreadFragments`, which this loop then reaches.
        var next = 0
        while next < printer.spreadFragments.count {
            let name = printer.spreadFragments[next]
            next += 1
            guard let definitions = defined[name] else { continue }
            guard definitions.count == 1 else { throw .duplicateDefinition("fragment \(name)") }
            fragments[name] = printer.fragment(definitions[0])
        }
        return ([operationText] + fragments.keys.sorted().compactMap { fragments[$0] }).joined(separator: " ")
    }
}

extension GraphQLOperation.OperationType {
    /// The type of a parsed operation.
    init(_ type: GraphQL.OperationType) {
        switch type {
        case .query: self = .query
        case .mutation: self = .mutation
        case .subscription: self = .subscription
        }
    }
}
#endif
