import Foundation
@testable import TapedeckServer
import Testing

/// The journal's own clock formats like the core's Timestamp.
@Suite struct JournalClockTests {
    @Test func formatsUTCWithMillisecondsLikeTheCore() throws {
        let text = JournalClock.now()
        #expect(text.count == 24)
        #expect(text.hasSuffix("Z"))
        let parsed = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
        #expect(abs(parsed.timeIntervalSinceNow) < 5)
    }
}
