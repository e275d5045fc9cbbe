import Foundation

/// An empty object, for HAR members this tool does not fill (`cache`).
package struct HAREmpty: Sendable, Hashable, Codable {
    /// Creates one.
    package init() {}
}
