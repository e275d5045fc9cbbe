import Foundation

/// The `log` object: version, creator and entries.
public struct HARLog: Sendable, Hashable, Codable {
    /// The HAR version, `1.2`.
    public var version: String
    /// The tool that wrote the file.
    public var creator: HARCreator
    /// The exchanges, in order.
    public var entries: [HAREntry]

    /// Creates a log.
    public init(version: String = "1.2", creator: HARCreator, entries: [HAREntry]) {
        self.version = version
        self.creator = creator
        self.entries = entries
    }
}
