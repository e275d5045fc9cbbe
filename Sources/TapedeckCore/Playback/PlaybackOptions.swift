/// How a cassette is played back: matching, exhaustion and latency; the same in server and connector.
public struct PlaybackOptions: Sendable, Hashable {
    /// The matching rules.
    public var match: MatchOptions
    /// What happens when all matching interactions were played.
    public var exhaustion: ExhaustionPolicy
    /// The latency model.
    public var latency: LatencyModel

    /// Creates options.
    public init(match: MatchOptions = .default, exhaustion: ExhaustionPolicy = .repeatLast,
                latency: LatencyModel = LatencyModel()) {
        self.match = match
        self.exhaustion = exhaustion
        self.latency = latency
    }
}
