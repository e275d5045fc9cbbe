import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ISO 8601 UTC timestamps with milliseconds, as cassettes and journals store them.
public enum Timestamp {
    /// Formats a date such as `2026-11-21T10:00:00.123Z`.
    public static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// The current time, formatted as ``iso8601(_:)`` does, without Foundation's formatter: both
    /// servers stamp every request's journal entry with it.
    public static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return format(secondsSince1970: Int64(time.tv_sec), milliseconds: Int(time.tv_nsec) / 1_000_000)
    }

    /// Formats an instant given as whole seconds since 1970 (UTC) and the milliseconds past them,
    /// as ``iso8601(_:)`` does; years 0 to 9999.
    ///
    /// The calendar is computed here rather than with `gmtime_r`, which takes the C library's
    /// time-zone lock on every call: under load the two event loops queued on it.
    static func format(secondsSince1970 seconds: Int64, milliseconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let date = CivilDate(daysSince1970: days)
        return String(unsafeUninitializedCapacity: 24) { bytes in
            func put(_ value: Int, at offset: Int, digits: Int, then separator: UInt8) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                bytes[offset + digits] = separator
            }
            put(date.year, at: 0, digits: 4, then: UInt8(ascii: "-"))
            put(date.month, at: 5, digits: 2, then: UInt8(ascii: "-"))
            put(date.day, at: 8, digits: 2, then: UInt8(ascii: "T"))
            put(secondOfDay / 3600, at: 11, digits: 2, then: UInt8(ascii: ":"))
            put(secondOfDay / 60 % 60, at: 14, digits: 2, then: UInt8(ascii: ":"))
            put(secondOfDay % 60, at: 17, digits: 2, then: UInt8(ascii: "."))
            put(milliseconds, at: 20, digits: 3, then: UInt8(ascii: "Z"))
            return 24
        }
    }
}
