import ArgumentParser
import TapedeckCore

// The core's option types as command-line values: swift-argument-parser parses them, names the
// option in its error, and lists the choices in `--help`. The libraries take only these types.
// A JSON path and the reverse proxy's target are read through `transform:` at their options
// instead, so that the error says what is wrong with the value, not only that it is invalid.

extension LatencyOption: ExpressibleByArgument {
    public init?(argument: String) {
        guard let option = try? LatencyOption(parsing: argument) else { return nil }
        self = option
    }

    public var defaultValueDescription: String { description }
}

extension ExhaustionPolicy: ExpressibleByArgument {}

extension ExpiryPolicy: ExpressibleByArgument {}

extension RecordMode: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(parsing: argument)
    }

    /// The modes `tapedeck record --mode` takes, as `--help` lists them: every mode but `replay`,
    /// which the recording proxy refuses (`tapedeck replay` replays).
    public static var allValueStrings: [String] {
        allCases.filter { $0 != .replay }.map(\.rawValue)
    }
}
