/// One way a JSON value breaks its schema: where (a JSON path into the value) and what, in short words.
public struct SchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// The place in the checked value: `$`, `$.user.age`, `$.items[2]`.
    public let path: JSONPath
    /// What is wrong there: `expected integer, got string`, `required property "id" missing`.
    public let message: String
    /// The JSON pointer of the schema keyword that failed, such as `#/properties/age/type`.
    public let schemaLocation: String

    /// Creates a violation.
    public init(path: JSONPath, message: String, schemaLocation: String) {
        self.path = path
        self.message = message
        self.schemaLocation = schemaLocation
    }

    /// `$.user.age: expected integer, got string`.
    public var description: String { "\(path): \(message)" }
}
