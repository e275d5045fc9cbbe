#if GraphQL
import Foundation

/// A GraphQL request in the form the matcher compares: its operation's canonical key and its
/// variables, with the ignore rules applied. Equal keys run the same operation with the same variables.
///
/// The operation's name is not compared on its own: the canonical key holds it. It is kept, with
/// the canonical text, only to name the operation in a diagnosis.
struct GraphQLMatchKey: Sendable, Hashable {
    /// The operation's ``GraphQLOperation/key``, or `sha256:HASH` for a persisted query whose text
    /// no recording holds.
    var operation: String
    /// The variables as JSON by value, the ignored places (`$.variables.requestId`) removed; an
    /// empty object when the request sends none or `null`.
    var variables: JSONValue
    /// How a diagnosis names the operation: `GetUser`, `the anonymous query`, or a persisted query's hash.
    var label: String
    /// The operation's canonical text, for a diagnosis; nil for a persisted query with no text.
    var canonicalText: String?

    /// The key of a request whose operation is known.
    init(operation: GraphQLOperation, variables: JSONValue) {
        self.operation = operation.key
        self.variables = variables
        label = operation.name ?? "the anonymous \(operation.operationType.rawValue)"
        canonicalText = operation.canonicalText
    }

    /// The key of a request carrying only the hash of a query no recording spells out.
    init(persistedQueryHash hash: String, operationName: String?, variables: JSONValue) {
        operation = "sha256:" + hash
        self.variables = variables
        label = operationName ?? "the persisted query \(hash.prefix(12))…"
        canonicalText = nil
    }

    static func == (lhs: GraphQLMatchKey, rhs: GraphQLMatchKey) -> Bool {
        lhs.operation == rhs.operation && lhs.variables == rhs.variables
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(operation)
        hasher.combine(variables)
    }

    /// Why a recorded key differs from a received one: the operation, else the first differing
    /// variable (`GetUser: $.variables.id recorded "1", received "3"`).
    static func failure(recorded: GraphQLMatchKey, received: GraphQLMatchKey) -> RuleFailure {
        guard recorded.operation == received.operation else {
            return RuleFailure(rule: .operation, difference: operationDifference(recorded, received))
        }
        guard let (path, left, right) = RuleFailure.firstJSONDifference(recorded.variables, received.variables, path: "$.variables") else {
            return RuleFailure(rule: .variables, difference: "\(received.label): the variables differ")
        }
        return RuleFailure(rule: .variables, difference: "\(received.label): \(path) recorded \(left?.summary ?? "(absent)"), "
                           + "received \(right?.summary ?? "(absent)")")
    }

    /// Two operations' difference: their names, or where the canonical texts of two operations of
    /// one name part (a field, an alias or a directive).
    private static func operationDifference(_ recorded: GraphQLMatchKey, _ received: GraphQLMatchKey) -> String {
        guard recorded.label == received.label, let old = recorded.canonicalText, let new = received.canonicalText else {
            return "recorded \(recorded.label), received \(received.label)"
        }
        let start = zip(old, new).prefix { $0 == $1 }.count
        func excerpt(_ text: String) -> String {
            let rest = text.dropFirst(max(0, start - 10))
            return (start > 10 ? "…" : "") + rest.prefix(50) + (rest.count > 50 ? "…" : "")
        }
        return "\(received.label) asks for other fields, aliases or directives: recorded `\(excerpt(old))`, received `\(excerpt(new))`"
    }
}
#endif
