import Foundation
import TapedeckCore

/// The replay options of the command line, checked and turned into the core's playback options.
public struct ReplaySettings: Sendable {
    /// The latency option text: `none`, `recorded`, `fixed:MS` or `scale:F`.
    public var latency = "none"
    /// The jitter in percent, if any.
    public var jitter: Double?
    /// The jitter seed.
    public var seed: UInt64 = 0
    /// The exhaustion policy text.
    public var onExhausted = "repeat-last"
    /// Query parameters ignored by matching.
    public var ignoredQuery: [String] = []
    /// Form fields ignored by matching.
    public var ignoredFormFields: [String] = []
    /// JSON paths ignored by matching.
    public var ignoredJSONPaths: [String] = []
    /// Whether bodies are ignored.
    public var ignoreBody = false
    /// Headers that must also match.
    public var matchedHeaders: [String] = []

    /// Creates default settings.
    public init() {}

    /// The playback options, or a readable reason the settings are wrong.
    public func playbackOptions() throws(SettingsError) -> PlaybackOptions {
        let option: LatencyOption
        do { option = try LatencyOption(parsing: latency) } catch { throw SettingsError(message: error.description) }
        if let jitter, !(0...100).contains(jitter) {
            throw SettingsError(message: "--jitter must be a percentage from 0 to 100, not \(jitter)")
        }
        guard let exhaustion = ExhaustionPolicy(rawValue: onExhausted) else {
            throw SettingsError(message: "--on-exhausted must be repeat-last, error or cycle, not \"\(onExhausted)\"")
        }
        var paths: [JSONPath] = []
        for text in ignoredJSONPaths {
            do { paths.append(try JSONPath(text)) } catch { throw SettingsError(message: error.description) }
        }
        let match = MatchOptions(ignoredQueryParameters: Set(ignoredQuery), ignoredFormFields: Set(ignoredFormFields),
                                 ignoredJSONPaths: paths, ignoreBody: ignoreBody, matchedHeaders: matchedHeaders)
        return PlaybackOptions(match: match, exhaustion: exhaustion,
                               latency: LatencyModel(option, jitter: jitter.map { Jitter(percent: $0, seed: seed) }))
    }
}

/// A command-line option with a value that makes no sense.
public struct SettingsError: Error, CustomStringConvertible, Sendable {
    /// What is wrong and what would be right.
    public let message: String

    /// Creates an error.
    public init(message: String) { self.message = message }

    public var description: String { message }
}
