/// Which statuses can answer a request on their own: the one rule for cassettes, stubs and
/// imports, their ranges included. A 1xx is an interim answer (RFC 9110 section 15.2) that a final one must follow, so a
/// recording or stub answering with one would leave the client waiting for an answer that never
/// comes, or, on a kept-alive HTTP/1.1 connection, taking the next request's answer for this one's.
/// The one exception is 101, when the WebSocket conversation it switches to follows it.
package enum AnswerStatusRule {
    /// The statuses a recording may hold: what a server sends, 100 to 599 (cassettes, HAR, VCR).
    package static let recorded = 100...599
    /// The statuses a stub (or `--unmatched-status`) may answer with: any three digits, so a
    /// client's handling of a code no server sends can be tried.
    package static let stubbed = 100...999

    /// Why `status` cannot answer a request, or nil when it can; `hasConversation` says whether a
    /// WebSocket conversation follows the answer.
    package static func refusal(status: Int, hasConversation: Bool) -> String? {
        if hasConversation {
            return status == 101 ? nil : "an answer with a WebSocket conversation has status 101, not \(status)"
        }
        guard (100...199).contains(status) else { return nil }
        return "status \(status) is an interim answer, which a final one must follow: "
            + "answer 200 to 599, or 101 with a WebSocket conversation"
    }
}
