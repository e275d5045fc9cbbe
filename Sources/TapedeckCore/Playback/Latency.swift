import Foundation

/// How long replay waits before the response head and before its end.
public enum LatencyOption: Sendable, Hashable, CustomStringConvertible {
    /// Answer at once (the default).
    case none
    /// Wait the recorded `firstByteMs` before the head and finish at `totalMs`.
    case recorded
    /// Wait this many milliseconds before the head.
    case fixed(milliseconds: Double)
    /// The recorded times multiplied by this factor.
    case scale(Double)

    /// Parses `none`, `recorded`, `fixed:MS` or `scale:F`.
    public init(parsing text: String) throws(LatencyParseError) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        switch (parts.first, parts.count) {
        case ("none", 1): self = .none
        case ("recorded", 1): self = .recorded
        case ("fixed", 2):
            guard let value = Double(parts[1]), LatencyModel.isValidDelay(value) else { throw LatencyParseError(text: text) }
            self = .fixed(milliseconds: value)
        case ("scale", 2):
            guard let value = Double(parts[1]), (0...LatencyModel.maximumScale).contains(value) else { throw LatencyParseError(text: text) }
            self = .scale(value)
        default:
            throw LatencyParseError(text: text)
        }
    }

    public var description: String {
        switch self {
        case .none: return "none"
        case .recorded: return "recorded"
        case .fixed(let milliseconds): return "fixed:\(milliseconds)"
        case .scale(let factor): return "scale:\(factor)"
        }
    }
}

/// A latency option that is not one of the four forms.
public struct LatencyParseError: Error, CustomStringConvertible, Sendable {
    /// The text given.
    public let text: String

    public var description: String {
        "invalid latency \"\(text)\": use none, recorded, fixed:MS (0 to \(Int(LatencyModel.maximumDelayMilliseconds))) or scale:F (0 to \(Int(LatencyModel.maximumScale)))"
    }
}

/// Varies each delay by up to a percentage, derived from a hash of the seed, the interaction
/// and its play count: the same run gives the same delays whatever the scheduling.
public struct Jitter: Sendable, Hashable {
    /// The largest variation, in percent of the delay.
    public var percent: Double
    /// The seed.
    public var seed: UInt64

    /// Creates a jitter.
    public init(percent: Double, seed: UInt64) {
        self.percent = percent
        self.seed = seed
    }

    /// The factor for one play: in `1 - percent/100 ... 1 + percent/100`.
    func factor(index: Int, playCount: Int) -> Double {
        var state = seed ^ (UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15)
        state ^= UInt64(truncatingIfNeeded: playCount) &* 0xC2B2_AE3D_27D4_EB4F
        let unit = Double(Self.splitMix(state) >> 11) / Double(1 << 53)  // in 0..<1
        return 1 + (unit * 2 - 1) * percent / 100
    }

    private static func splitMix(_ input: UInt64) -> UInt64 {
        var z = input &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// When to send the parts of one replayed response, measured from the request's arrival.
public struct ResponseDelay: Sendable, Hashable {
    /// Before the head.
    public var head: Duration
    /// Before the end of the body.
    public var total: Duration
    /// For streamed responses, when each chunk is sent.
    public var chunks: [Duration]

    /// No waiting at all.
    public static let zero = ResponseDelay(head: .zero, total: .zero, chunks: [])

    /// Creates a delay.
    public init(head: Duration, total: Duration, chunks: [Duration] = []) {
        self.head = head
        self.total = total
        self.chunks = chunks
    }
}

/// The deterministic latency model: an option plus an optional jitter.
public struct LatencyModel: Sendable, Hashable {
    /// The option.
    public var option: LatencyOption
    /// The jitter, if any.
    public var jitter: Jitter?

    /// Creates a model.
    public init(_ option: LatencyOption = .none, jitter: Jitter? = nil) {
        self.option = option
        self.jitter = jitter
    }

    /// The longest delay anything may ask for: one day, in milliseconds. A longer `delayMs` or
    /// `fixed:MS` is refused where it is read; a recorded time scaled past it waits this long.
    public static let maximumDelayMilliseconds: Double = 86_400_000
    /// The largest `scale:F`.
    public static let maximumScale: Double = 1000

    /// Whether a delay in milliseconds is one Tapedeck takes: a finite number from 0 to ``maximumDelayMilliseconds``.
    public static func isValidDelay(_ milliseconds: Double) -> Bool {
        (0...maximumDelayMilliseconds).contains(milliseconds)
    }

    /// A delay in milliseconds as a duration, kept within 0 and ``maximumDelayMilliseconds`` (NaN is 0).
    public static func duration(milliseconds: Double) -> Duration {
        let bounded = milliseconds.isNaN ? 0 : min(max(milliseconds, 0), maximumDelayMilliseconds)
        return .microseconds(Int64((bounded * 1000).rounded()))
    }

    /// The delays for one play of an interaction; a hand-set `delayMs` wins over the option.
    public func delay(for interaction: Interaction, index: Int, playCount: Int) -> ResponseDelay {
        let firstByte = interaction.timing?.firstByteMs ?? 0
        let total = max(interaction.timing?.totalMs ?? firstByte, firstByte)
        let chunkOffsets = interaction.chunks?.map(\.atMs) ?? []
        var head: Double, end: Double, chunks: [Double]
        if let delayMs = interaction.delayMs {
            (head, end, chunks) = (delayMs, delayMs + (total - firstByte), chunkOffsets.map { delayMs + $0 })
        } else {
            switch option {
            case .none: (head, end, chunks) = (0, 0, chunkOffsets.map { _ in 0 })
            case .recorded: (head, end, chunks) = (firstByte, total, chunkOffsets.map { firstByte + $0 })
            case .fixed(let milliseconds): (head, end, chunks) = (milliseconds, milliseconds, chunkOffsets.map { _ in milliseconds })
            case .scale(let factor):
                (head, end, chunks) = (firstByte * factor, total * factor, chunkOffsets.map { (firstByte + $0) * factor })
            }
        }
        let factor = jitter?.factor(index: index, playCount: playCount) ?? 1
        func duration(_ milliseconds: Double) -> Duration { Self.duration(milliseconds: milliseconds * factor) }
        return ResponseDelay(head: duration(head), total: duration(max(end, head)), chunks: chunks.map(duration))
    }
}
