import Foundation
import TapedeckCore

/// What the inspector may keep of an exchange: secrets concealed as `<NAME>` and the redaction
/// rules applied, as a cassette would hold it, and every value redaction removed also blotted out
/// of the diagnosis texts that quote the request (a differing query value, say).
struct ExchangeRedaction: Sendable {
    /// The rules applied.
    let redactor: Redactor
    /// The secrets concealed.
    let secrets: Secrets

    /// The exchange as a cassette would hold it, and the live values redaction removed.
    func clean(request: CassetteRequest, response: CassetteResponse?) -> (CassetteRequest, CassetteResponse?, removed: [String]) {
        let original = Interaction(request: request, response: response ?? CassetteResponse(status: 0))
        let concealed = secrets.isEmpty ? original : secrets.conceal(original)
        let (redacted, changes) = redactor.redact(concealed)
        guard !changes.isEmpty else { return (redacted.request, response.map { _ in redacted.response }, []) }
        var removed: [String] = []
        for (before, after) in zip(concealed.request.headers, redacted.request.headers) where before.value != after.value {
            removed.append(before.value)
        }
        removed += Self.queryValues(concealed.request.url, redacted.request.url)
        if concealed.request.body.isReadableWhole {
            Self.jsonValues(concealed.request.body.data, redacted.request.body.data, into: &removed)
        }
        return (redacted.request, response.map { _ in redacted.response }, removed.filter { !$0.isEmpty })
    }

    /// A conversation as a cassette would hold it: its messages concealed and redacted as bodies are.
    func clean(_ conversation: InspectedConversation) -> InspectedConversation {
        func clean(_ messages: [WebSocketMessage]) -> [WebSocketMessage] {
            var interaction = Interaction(request: CassetteRequest(method: "GET", url: "/"), response: CassetteResponse(status: 101),
                                          websocket: messages)
            if !secrets.isEmpty { interaction = secrets.conceal(interaction) }
            return redactor.redact(interaction).0.websocket ?? []
        }
        var cleaned = conversation
        cleaned.messages = clean(conversation.messages)
        cleaned.expected = conversation.expected.flatMap { clean([$0]).first }
        cleaned.received = conversation.received.flatMap { clean([$0]).first }
        return cleaned
    }

    /// A URL as a cassette would hold it: secrets as `<NAME>`, redacted query parameters.
    func clean(url: String) -> String {
        guard url.contains("?") || !secrets.isEmpty else { return url }
        let request = secrets.conceal(CassetteRequest(method: "GET", url: url))
        return redactor.redact(Interaction(request: request, response: CassetteResponse(status: 0))).0.request.url
    }

    /// A diagnosis with the request as kept and no removed value left in its texts.
    func clean(_ diagnosis: MatchDiagnosis, request: CassetteRequest, removed: [String]) -> MatchDiagnosis {
        var diagnosis = diagnosis
        diagnosis.request = MatchDiagnosis.ReceivedRequest(request)
        guard !removed.isEmpty else { return diagnosis }
        func blot(_ text: String) -> String {
            removed.reduce(text) { $0.replacingOccurrences(of: $1, with: Redactor.placeholder) }
        }
        for number in diagnosis.nearest.indices {
            diagnosis.nearest[number].differences = diagnosis.nearest[number].differences.map(blot)
        }
        if let stubs = diagnosis.nearestStubs {
            diagnosis.nearestStubs = stubs.map { var stub = $0; stub.difference = blot(stub.difference); return stub }
        }
        diagnosis.errors = diagnosis.errors?.map { var error = $0; error.message = blot(error.message); return error }
        return diagnosis
    }

    /// The query values that differ between two URLs, from the first (percent-decoded too).
    private static func queryValues(_ before: String, _ after: String) -> [String] {
        func pairs(_ url: String) -> [Substring] {
            guard let query = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
            return query.split(separator: "&")
        }
        var values: [String] = []
        for (old, new) in zip(pairs(before), pairs(after)) where old != new {
            guard let value = old.split(separator: "=", maxSplits: 1).dropFirst().first else { continue }
            values.append(String(value))
            if let decoded = String(value).replacingOccurrences(of: "+", with: " ").removingPercentEncoding { values.append(decoded) }
        }
        return values
    }

    /// The JSON scalars of `before` that stand as the placeholder in `after`.
    private static func jsonValues(_ before: Data, _ after: Data, into values: inout [String]) {
        guard before != after,
              let old = try? JSONSerialization.jsonObject(with: before, options: [.fragmentsAllowed]),
              let new = try? JSONSerialization.jsonObject(with: after, options: [.fragmentsAllowed]) else { return }
        func walk(_ old: Any, _ new: Any) {
            switch (old, new) {
            case let (old as [String: Any], new as [String: Any]):
                for (key, value) in old { if let other = new[key] { walk(value, other) } }
            case let (old as [Any], new as [Any]):
                for (a, b) in zip(old, new) { walk(a, b) }
            case let (old, new as String) where new == Redactor.placeholder:
                if let text = old as? String { values.append(text) } else if !(old is NSNull) { values.append("\(old)") }
            default:
                break
            }
        }
        walk(old, new)
    }
}
