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

    /// The current time, formatted as ``iso8601(_:)`` does, without Foundation's formatter:
    /// the recording proxy stamps every exchange with it.
    public static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(unsafeUninitializedCapacity: 24) { bytes in
            func put(_ value: Int, at offset: Int, digits: Int, then separator: UInt8) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                bytes[offset + digits] = separator
            }
            put(Int(parts.tm_year) + 1900, at: 0, digits: 4, then: UInt8(ascii: "-"))
            put(Int(parts.tm_mon) + 1, at: 5, digits: 2, then: UInt8(ascii: "-"))
            put(Int(parts.tm_mday), at: 8, digits: 2, then: UInt8(ascii: "T"))
            put(Int(parts.tm_hour), at: 11, digits: 2, then: UInt8(ascii: ":"))
            put(Int(parts.tm_min), at: 14, digits: 2, then: UInt8(ascii: ":"))
            put(Int(parts.tm_sec), at: 17, digits: 2, then: UInt8(ascii: "."))
            put(Int(time.tv_nsec) / 1_000_000, at: 20, digits: 3, then: UInt8(ascii: "Z"))
            return 24
        }
    }
}
