/// How a cassette is played back: matching, exhaustion, latency, secrets and expiry; the same in
/// the server and the connector.
public struct PlaybackOptions: Sendable, Hashable {
    /// The matching rules.
    public var match: MatchOptions
    /// What happens when all matching interactions were played.
    public var exhaustion: ExhaustionPolicy
    /// The latency model.
    public var latency: LatencyModel
    /// Values that stand in cassettes as `<NAME>`: a live request's value matches its placeholder.
    public var secrets: Secrets
    /// When recorded interactions expire.
    public var expiry: ExpiryOptions
    /// The most bytes a templated stub answer may expand to (`--max-template-output`).
    public var maxTemplateOutput = StubSet.defaultMaxTemplateOutput

    /// Creates options.
    public init(match: MatchOptions = .default, exhaustion: ExhaustionPolicy = .repeatLast,
                latency: LatencyModel = LatencyModel(), secrets: Secrets = .none, expiry: ExpiryOptions = ExpiryOptions()) {
        self.match = match
        self.exhaustion = exhaustion
        self.latency = latency
        self.secrets = secrets
        self.expiry = expiry
    }
}
