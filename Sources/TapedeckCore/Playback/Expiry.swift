import Foundation

/// What happens to an interaction older than the expiry age, by its `recordedAt`.
public enum ExpiryPolicy: String, Sendable, Hashable, CaseIterable {
    /// Serve it, and say so: a log line from the server, `Tapedeck-Warning: expired` on the answer.
    case warn
    /// Do not serve it: a 599 from the server, a thrown error from the connector, saying how to re-record.
    case error
    /// In the recording modes, treat it as unmatched so it is recorded again; in replay, as `error`.
    case rerecord
}

/// When recorded interactions expire, so cassettes are re-recorded instead of rotting
/// (VCR's `re_record_interval`, Polly's `expiresIn`).
///
/// The age comes from the options when they give one, otherwise from each cassette's
/// `meta.expireAfterDays`. Interactions without `recordedAt` (hand-written ones) never expire.
public struct ExpiryOptions: Sendable, Hashable {
    /// The age in days; nil leaves it to each cassette's `meta.expireAfterDays`.
    public var days: Double?
    /// What happens to an expired interaction.
    public var policy: ExpiryPolicy

    /// Creates expiry options.
    public init(days: Double? = nil, policy: ExpiryPolicy = .warn) {
        self.days = days
        self.policy = policy
    }

    /// The age that applies to a cassette with this metadata, if any.
    public func days(for meta: CassetteMeta) -> Double? { days ?? meta.expireAfterDays }

    /// Whether an interaction recorded at `recordedAt` is older than `days` at `now`.
    public static func isExpired(recordedAt: String?, days: Double?, now: Date) -> Bool {
        guard days != nil else { return false }
        return isExpired(recorded: recordedAt.flatMap(parse), days: days, now: now)
    }

    /// Whether an interaction recorded at `recorded` (its `recordedAt` as read by ``parse(_:)``) is
    /// older than `days` at `now`.
    static func isExpired(recorded: Date?, days: Double?, now: Date) -> Bool {
        guard let days, let recorded else { return false }
        return now.timeIntervalSince(recorded) > days * 86_400
    }

    /// Reads an ISO 8601 timestamp, with or without fractional seconds.
    static func parse(_ timestamp: String) -> Date? {
        (try? Date(timestamp, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(timestamp, strategy: Date.ISO8601FormatStyle()))
    }
}

extension ExpiryOptions {
    /// The log line for an expired interaction served under `warn`.
    package static func warning(for playback: Playback) -> String {
        "warning: expired: \(playback.cassette) interactions[\(playback.index)] \(playback.interaction.request.method) "
            + "\(playback.interaction.request.url), recorded \(playback.interaction.recordedAt ?? "?"); re-record it "
            + "(--on-expired rerecord)"
    }
}
