import Foundation

/// The `log` object: version, creator and entries.
package struct HARLog: Sendable, Hashable, Codable {
    /// The HAR version, `1.2`.
    package var version: String
    /// The tool that wrote the file.
    package var creator: HARCreator
    /// The exchanges, in order.
    package var entries: [HAREntry]

    /// Creates a log.
    package init(version: String = "1.2", creator: HARCreator, entries: [HAREntry]) {
        self.version = version
        self.creator = creator
        self.entries = entries
    }
}
