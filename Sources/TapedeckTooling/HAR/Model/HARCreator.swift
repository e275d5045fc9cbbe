import Foundation

/// The tool that wrote a HAR file.
package struct HARCreator: Sendable, Hashable, Codable {
    /// Its name.
    package var name: String
    /// Its version.
    package var version: String

    /// Creates a creator.
    package init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}
