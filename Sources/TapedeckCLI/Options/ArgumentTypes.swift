import ArgumentParser
import TapedeckCore

// The core's option types as command-line values: swift-argument-parser parses them, names the
// option in its error, and lists the choices in `--help`. The libraries take only these types.
// A JSON path and the reverse proxy's target are read through `transform:` at their options
// instead (`argument(_:reason:)` below), so that the error says what is wrong with the value, not only
// that it is invalid.

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

/// What is wrong with an option's value, said without the value: swift-argument-parser's error
/// names it already ("The value 'X' is invalid for '--target <URL>': WHAT IS WRONG").
struct InvalidArgument: Error, CustomStringConvertible {
    let description: String
}

/// Reads an option's value with `read` (for `transform:`); a value it refuses is said by `reason`
/// alone, without the value.
func argument<Value, Failure: Error>(_ read: @escaping @Sendable (String) throws(Failure) -> Value,
                                     reason: @escaping @Sendable (Failure) -> String) -> @Sendable (String) throws -> Value {
    { text in
        do throws(Failure) {
            return try read(text)
        } catch {
            throw InvalidArgument(description: reason(error))
        }
    }
}
