import Foundation

/// A user of the example API.
public struct User: Codable, Sendable, Equatable {
    /// The id.
    public var id: Int
    /// The name.
    public var name: String
    /// The e-mail address.
    public var email: String
}
