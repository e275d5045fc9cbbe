import Foundation

/// An empty object, for HAR members this tool does not fill (`cache`).
public struct HAREmpty: Sendable, Hashable, Codable {
    /// Creates one.
    public init() {}
}
