#if canImport(Glibc)
import Glibc
#endif

/// The journal's timestamps, `2026-11-21T10:00:00.123Z` as the core's `Timestamp` writes them,
/// formatted without Foundation so the hot path stays cheap.
enum JournalClock {
    /// The current UTC time with milliseconds.
    static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var bytes = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int, at offset: Int, digits: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                bytes[index] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(Int(parts.tm_year) + 1900, at: 0, digits: 4)
        bytes[4] = 45  // -
        put(Int(parts.tm_mon) + 1, at: 5, digits: 2)
        bytes[7] = 45
        put(Int(parts.tm_mday), at: 8, digits: 2)
        bytes[10] = 84  // T
        put(Int(parts.tm_hour), at: 11, digits: 2)
        bytes[13] = 58  // :
        put(Int(parts.tm_min), at: 14, digits: 2)
        bytes[16] = 58
        put(Int(parts.tm_sec), at: 17, digits: 2)
        bytes[19] = 46  // .
        put(Int(time.tv_nsec) / 1_000_000, at: 20, digits: 3)
        bytes[23] = 90  // Z
        return String(decoding: bytes, as: UTF8.self)
    }
}
