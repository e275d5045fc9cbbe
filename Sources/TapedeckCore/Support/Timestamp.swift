import Foundation

/// ISO 8601 UTC timestamps with milliseconds, as cassettes store them.
public enum Timestamp {
    /// Formats a date such as `2026-11-21T10:00:00.123Z`.
    public static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}

extension Timestamp {
    /// The current time, formatted.
    public static func now() -> String { iso8601(Date()) }
}
