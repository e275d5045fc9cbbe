import Foundation

/// The tool that wrote a HAR file.
public struct HARCreator: Sendable, Hashable, Codable {
    /// Its name.
    public var name: String
    /// Its version.
    public var version: String

    /// Creates a creator.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}
