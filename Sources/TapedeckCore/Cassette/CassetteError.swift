import Foundation

/// A cassette that cannot be read or written, with the file and the place.
public struct CassetteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The file could not be read or written.
        case io(String)
        /// The bytes are not JSON; line and column are 1-based.
        case syntax(line: Int, column: Int, message: String)
        /// The JSON does not describe a cassette; `path` is like `interactions[3].response.status`.
        case content(path: String, message: String)
        /// The cassette declares a format version this release does not know.
        case unsupportedVersion(Int)
        /// Another recorder records the cassette (one at a time: `CassetteLock`); the process
        /// holding it, when known. A failure of the moment, not of the input.
        case inUse(process: Int32?)
    }

    /// The cassette file, when there is one.
    public var file: String?
    /// What went wrong.
    public var kind: Kind

    /// Creates an error.
    public init(file: String?, kind: Kind) {
        self.file = file
        self.kind = kind
    }

    /// Whether the input or its use was at fault (a tool's exit status 2), rather than the moment
    /// (exit status 1): every kind but ``Kind/inUse(process:)``.
    public var isBadInput: Bool {
        if case .inUse = kind { return false }
        return true
    }

    public var description: String {
        let name = file ?? "cassette"
        switch kind {
        case .io(let message):
            return "\(name): \(message)"
        case let .syntax(line, column, message):
            return "\(name):\(line):\(column): invalid JSON: \(message)"
        case let .content(path, message):
            // At the top level the message names the document (`stubs file: expected an object ...`).
            return path.isEmpty ? "\(name): \(message)" : "\(name): \(path): \(message)"
        case .unsupportedVersion(let version):
            return "\(name): cassette format version \(version) is not supported; this release reads version \(Cassette.formatVersion)"
        case .inUse(let process):
            return "\(name): is being recorded by another recorder (\(process.map { "process \($0)" } ?? "another process")); "
                + "a cassette is recorded by one at a time, or the later save loses the earlier's recordings: "
                + "stop that one, or record into another cassette"
        }
    }
}
