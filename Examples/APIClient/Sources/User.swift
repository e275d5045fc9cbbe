import Foundation

/// A user of the example API.
public struct User: Codable, Sendable, Equatable {
    /// The id.
    public var id: Int
    /// The name.
    public var name: String
    /// The e-mail address.
    public var email: String

    /// Creates a user.
    public init(id: Int, name: String, email: String) {
        self.id = id
        self.name = name
        self.email = email
    }
}
