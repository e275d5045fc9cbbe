import Foundation
@testable import TapedeckCore
import Testing

@Suite struct TimestampTests {
    @Test("now() is UTC with milliseconds, in the format iso8601 writes, at the current moment")
    func nowFormatsLikeISO8601() throws {
        let before = Date()
        let text = Timestamp.now()
        let after = Date()
        #expect(text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(text)")
        let parsed = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
        // Milliseconds are cut, not rounded: the text may be up to 1 ms before `before`.
        #expect(parsed.timeIntervalSince(before) > -0.0015 && after.timeIntervalSince(parsed) > -0.0005)
        #expect(Timestamp.iso8601(before).prefix(16) == text.prefix(16) || Timestamp.iso8601(after).prefix(16) == text.prefix(16))
    }

    @Test("the calendar is computed as Foundation's formatter computes it, leap days and centuries included")
    func formatAgreesWithFoundation() {
        let edges: [Int64] = [
            0, -1, 86_399, 86_400, 951_782_400, 951_868_800, // 1970; 2000-02-29 and 2000-03-01
            4_102_444_799, 4_102_444_800, // the end of 2099 and 2100-01-01
            4_107_456_000, 4_107_542_400, // 2100-02-28 and 2100-03-01 (2100 is not a leap year)
            -2_208_988_800, 253_402_300_799, // 1900-01-01 and 9999-12-31T23:59:59 (Foundation's calendar is Julian before 1582)
        ]
        // 1906 to 2286 in steps of about 58 days, each at another second of the day.
        let spread = (0 ..< 2000).map { Int64($0) * 5_000_003 - 2_000_000_000 }
        for seconds in edges + spread {
            let milliseconds = Int(UInt64(abs(seconds)) % 1000)
            let date = Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000 + 0.0002)
            #expect(Timestamp.format(secondsSince1970: seconds, milliseconds: milliseconds) == Timestamp.iso8601(date),
                    "\(seconds) s")
        }
    }

    @Test("days since 1970 become the right civil date on both sides of the epoch")
    func civilDates() {
        #expect(CivilDate(daysSince1970: 0) == CivilDate(year: 1970, month: 1, day: 1))
        #expect(CivilDate(daysSince1970: -1) == CivilDate(year: 1969, month: 12, day: 31))
        #expect(CivilDate(daysSince1970: 11_016) == CivilDate(year: 2000, month: 2, day: 29))
        #expect(CivilDate(daysSince1970: 20_783) == CivilDate(year: 2026, month: 11, day: 26))
    }
}
