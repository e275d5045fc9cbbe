import Foundation

/// Reads Go's `time.Duration` text (`460.639208ms`, `2.086618375s`, `1m30s`, `0s`), as go-vcr writes durations.
enum GoDuration {
    /// The duration in milliseconds, rounded to microseconds; nil when the text is not a Go duration.
    static func milliseconds(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ns", 1e-6), ("us", 1e-3), ("µs", 1e-3), ("μs", 1e-3), ("ms", 1),
                                         ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var negative = false
        if rest.first == "-" || rest.first == "+" { negative = rest.first == "-"; rest = rest.dropFirst() }
        if rest == "0" { return 0 }
        var total = 0.0
        var sawPart = false
        while !rest.isEmpty {
            let number = rest.prefix(while: { $0.isNumber || $0 == "." })
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            // Longest unit first: "ms" before "m", "ns"/"us" before "s".
            guard let unit = units.sorted(by: { $0.0.count > $1.0.count }).first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.0.count)
            total += value * unit.1
            sawPart = true
        }
        guard sawPart else { return nil }
        return ((negative ? -total : total) * 1000).rounded() / 1000
    }
}
