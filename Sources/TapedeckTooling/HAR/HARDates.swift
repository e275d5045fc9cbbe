import Foundation
import TapedeckCore

/// Reads the ISO 8601 dates HAR writers produce (any fraction length, `Z` or an offset) and writes cassette-style ones.
enum HARDates {
    /// Parses `2026-11-21T05:08:03.635315+00:00`, `2026-11-21T05:08:03.635Z` or `2026-11-21T05:08:03Z`.
    static func parse(_ text: String) -> Date? {
        guard let tIndex = text.firstIndex(of: "T") else { return nil }
        let time = text[text.index(after: tIndex)...]
        let zoneStart = time.firstIndex { $0 == "Z" || $0 == "+" || $0 == "-" } ?? time.endIndex
        var clock = time[..<zoneStart]
        var fraction = 0.0
        if let dot = clock.firstIndex(of: ".") {
            fraction = Double("0" + clock[dot...]) ?? 0
            clock = clock[..<dot]
        }
        let zone = time[zoneStart...]
        let whole = "\(text[..<tIndex])T\(clock)\(zone.isEmpty ? "Z" : String(zone))"
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: whole) else { return nil }
        return date.addingTimeInterval(fraction)
    }

    /// `date` moved by `milliseconds`, formatted as cassettes do (UTC, milliseconds).
    static func format(_ date: Date, plusMilliseconds milliseconds: Double = 0) -> String {
        Timestamp.iso8601(date.addingTimeInterval(milliseconds / 1000))
    }
}
