import Foundation
import TapedeckCore
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
}
