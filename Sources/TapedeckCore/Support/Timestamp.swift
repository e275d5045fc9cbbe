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

/// A day of the proleptic Gregorian calendar, from a count of days since 1970-01-01.
///
/// Howard Hinnant's `civil_from_days`: the year is taken to start on 1 March, so the leap day
/// ends it, and days are counted in 400-year eras of 146,097 days.
struct CivilDate: Equatable {
    var year: Int
    var month: Int
    var day: Int

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    init(daysSince1970: Int64) {
        let shifted = daysSince1970 + 719_468 // days from 0000-03-01 to 1970-01-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097 // 0 ... 146,096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365 // 0 ... 399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100) // 0 ... 365, from 1 March
        let shiftedMonth = (5 * dayOfYear + 2) / 153 // 0 ... 11, March first
        day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }
}
