import Foundation

/// A match rule written in Swift, added to the built-in rules: an interaction is served only when
/// it also passes every custom rule. Its name appears in near-miss diagnoses.
///
/// ```swift
/// let sameTenant = CustomMatchRule("same tenant") { recorded, incoming in
///     recorded.headers["X-Tenant"] == incoming.headers["X-Tenant"]
/// }
/// ```
public struct CustomMatchRule: Sendable {
    /// The name shown in diagnoses.
    public let name: String
    /// Whether the recorded request may answer the incoming one.
    public let matches: @Sendable (_ recorded: CassetteRequest, _ incoming: CassetteRequest) -> Bool

    /// Creates a rule.
    public init(_ name: String, matches: @escaping @Sendable (_ recorded: CassetteRequest, _ incoming: CassetteRequest) -> Bool) {
        self.name = name
        self.matches = matches
    }
}

/// Swift code that takes part in playback and recording: custom match rules, closures that
/// change an interaction before it is served or before it is written, and one told of each written.
public struct PlaybackHooks: Sendable {
    /// Rules added to the built-in ones.
    public var rules: [CustomMatchRule]
    /// Changes an interaction before it is served, given the incoming request (say, to echo a request id).
    public var beforePlayback: (@Sendable (Interaction, CassetteRequest) -> Interaction)?
    /// Changes an interaction before it is redacted and written.
    public var beforeRecord: (@Sendable (Interaction) -> Interaction)?
    /// Told of each interaction recorded, as it is written (redacted, secrets as placeholders); it
    /// may run on a server's event loop, so it must return at once (`tapedeck record` prints a line).
    public var afterRecord: (@Sendable (Interaction) -> Void)?
    /// The current time, for expiry; tests fix it.
    public var now: @Sendable () -> Date

    /// Creates hooks; none by default.
    public init(rules: [CustomMatchRule] = [], beforePlayback: (@Sendable (Interaction, CassetteRequest) -> Interaction)? = nil,
                beforeRecord: (@Sendable (Interaction) -> Interaction)? = nil, afterRecord: (@Sendable (Interaction) -> Void)? = nil,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.rules = rules
        self.beforePlayback = beforePlayback
        self.beforeRecord = beforeRecord
        self.afterRecord = afterRecord
        self.now = now
    }
}
