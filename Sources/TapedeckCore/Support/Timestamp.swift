import Foundation

/// ISO 8601 UTC timestamps with milliseconds, as cassettes store them.
enum Timestamp {
    /// Formats a date such as `2026-11-21T10:00:00.123Z`.
    static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}
