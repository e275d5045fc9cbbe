/// What happens when every interaction matching a request was already played.
public enum ExhaustionPolicy: String, Sendable, Hashable, CaseIterable {
    /// Serve the last matching interaction again (the default).
    case repeatLast = "repeat-last"
    /// Treat the request as unmatched, reported as exhausted.
    case error
    /// Start again from the first matching interaction.
    case cycle
}
