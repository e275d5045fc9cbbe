import ArgumentParser
import TapedeckCore
import TapedeckServer

// The core's option types as command-line values: swift-argument-parser parses them, names the
// option in its error, and lists the choices in `--help`. The libraries take only these types.
// A JSON path and the reverse proxy's target are read through `transform:` at their options
// instead (`argument(_:)` below), so that the error says what is wrong with the value, not only
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

extension JSONPath {
    /// Reads an option's value (`transform:`).
    static func argument(_ text: String) throws(InvalidArgument) -> JSONPath {
        do {
            return try JSONPath(text)
        } catch {
            throw InvalidArgument(description: error.message)
        }
    }
}

extension ReverseProxyTarget {
    /// Reads an option's value (`transform:`).
    static func argument(_ text: String) throws(InvalidArgument) -> ReverseProxyTarget {
        do {
            return try ReverseProxyTarget(text)
        } catch {
            throw InvalidArgument(description: error.reason)
        }
    }
}
