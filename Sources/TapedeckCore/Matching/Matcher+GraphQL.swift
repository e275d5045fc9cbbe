#if GraphQL
import Foundation

extension Matcher {
    /// A GraphQL request's miss in one line, which its 599 body also gives as GraphQL `errors`:
    /// the operation and the first difference from its nearest recording
    /// (`GetUser: $.variables.id recorded "1", received "3"`), that no recording has the operation,
    /// or that the query does not parse and was matched by its body. Nil for another request, and
    /// when bodies are ignored. Computed only on a miss.
    func graphQLMiss(for request: CassetteRequest) -> String? {
        guard !options.ignoreBody, let graphQLRequest = GraphQLKeyReader.graphQLRequest(request) else { return nil }
        let received: GraphQLMatchKey
        switch normalizer.graphQLKey(for: graphQLRequest) {
        case .failure(let error): return "\(error); matched by body"
        case .success(let key): received = key
        }
        let sameOperation = keys.indices.filter {
            if case .graphQL(let recorded) = keys[$0].body { return recorded.operation == received.operation }
            return false
        }
        guard !sameOperation.isEmpty else {
            return "no recording has the operation \(received.label)"
                + (graphQLRequest.query == nil ? " (a persisted query: no recording holds a query with its hash)" : "")
        }
        let target = request.target
        let receivedKey = normalizer.key(for: request, target: target)
        // The recording of this operation that fails the lightest rules, the first of equals.
        let nearest = sameOperation.map { position in
            let failures = RuleFailure.compare(recorded: keys[position], origin: origins[position], received: receivedKey, target: target)
            return (weight: failures.reduce(0) { $0 + $1.rule.weight }, failures: failures)
        }.min { $0.weight < $1.weight }
        guard let failure = nearest?.failures.first else { return "\(received.label): a recording matches, but another rule refused it" }
        return failure.rule == .variables ? failure.difference : "\(received.label): \(failure.rule.name) \(failure.difference)"
    }
}
#endif
