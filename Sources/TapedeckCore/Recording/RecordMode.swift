import Foundation

/// When a recorder forwards to the live service and records, and when it replays.
public enum RecordMode: String, Sendable, Hashable, CaseIterable {
    /// Replay only: never forward; a missing cassette is an error.
    case replay
    /// Record only when the cassette does not exist yet; replay otherwise.
    case once
    /// Replay what the cassette matches; forward and record the rest (the default).
    case newEpisodes = "new-episodes"
    /// Forward and record everything into a fresh cassette.
    case all

    /// Parses a mode; `record` means `all`.
    public init?(parsing text: String) {
        let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
        if lowered == "record" { self = .all; return }
        self.init(rawValue: lowered)
    }

    /// Whether this mode records anything, given whether the cassette exists: `all` and
    /// `new-episodes` always may, `once` only into a new cassette, `replay` never. Every door
    /// (the recording proxy, the recording connector, the test trait) asks here.
    public func records(cassetteExists: Bool) -> Bool {
        switch self {
        case .all, .newEpisodes: true
        case .once: !cassetteExists
        case .replay: false
        }
    }

    /// The name of the environment variable that overrides the mode in code.
    public static let environmentVariable = "TAPEDECK_MODE"

    /// The mode from `TAPEDECK_MODE` if set and valid, else `fallback`.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment,
                                       default fallback: RecordMode) throws(RecordModeError) -> RecordMode {
        guard let text = environment[environmentVariable], !text.isEmpty else { return fallback }
        guard let mode = RecordMode(parsing: text) else { throw RecordModeError(text: text) }
        return mode
    }
}

/// A `TAPEDECK_MODE` value that names no mode.
public struct RecordModeError: Error, CustomStringConvertible, Sendable {
    /// The value given.
    public let text: String

    public var description: String {
        "\(RecordMode.environmentVariable)=\(text) is not a mode: use replay, once, new-episodes, all or record"
    }
}
