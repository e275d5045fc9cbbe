import Foundation

/// A name and value: a header, a query parameter or a cookie.
public struct HARNameValue: Sendable, Hashable, Codable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String

    /// Creates a pair.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
