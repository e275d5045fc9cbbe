/// Something in a schema that Tapedeck reads but does not check, or reads in another dialect's way:
/// validation goes on without it. Each distinct warning is reported once per compiled schema.
public struct SchemaWarning: Sendable, Hashable, CustomStringConvertible {
    /// The JSON pointer of the first schema place it concerns.
    public let location: String
    /// What is not supported or how it is read, in a short sentence.
    public let message: String

    /// Creates a warning at a schema place.
    public init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "schema \(location): \(message)" }
}
