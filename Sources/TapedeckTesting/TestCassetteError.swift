import Foundation
import Tapedeck

/// Why a test's cassette could not be used, or why the test fails because of it.
public enum TestCassetteError: Error, CustomStringConvertible, Sendable {
    /// A cassette name that is empty, absolute or contains `..`.
    case invalidName(String)
    /// Replay mode and no cassette file: it must be recorded first.
    case missing(name: String, file: String, test: String?)
    /// The cassette file is not a valid cassette.
    case invalid(CassetteError)
    /// `TAPEDECK_MODE` names no mode.
    case invalidMode(RecordModeError)
    /// The test finished without playing some recorded interactions (`requireAllPlayed`).
    case unplayed(name: String, interactions: [String])
    /// The cassette could not be written after recording.
    case notSaved(CassetteError)

    public var description: String {
        switch self {
        case .invalidName(let name):
            return "cassette name \"\(name)\" is not usable: give a non-empty relative name without \"..\""
        case .missing(let name, let file, let test):
            let filter = test.map { " --filter '\($0)'" } ?? ""
            return "cassette \"\(name)\" does not exist at \(file). Record it against the live service with "
                + "`TAPEDECK_MODE=record swift test\(filter)` (or TAPEDECK_MODE=once to record only missing cassettes)"
        case .invalid(let error):
            return "\(error)"
        case .invalidMode(let error):
            return "\(error)"
        case .unplayed(let name, let interactions):
            return "cassette \"\(name)\": \(interactions.count) recorded interaction(s) were never played: "
                + interactions.joined(separator: "; ")
                + ". Remove them (re-record with TAPEDECK_MODE=record) or drop requireAllPlayed"
        case .notSaved(let error):
            return "the recorded cassette could not be saved: \(error)"
        }
    }
}
