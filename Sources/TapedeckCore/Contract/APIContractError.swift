/// Why an API document cannot be read as a contract, named by the place in it.
public struct APIContractError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON pointer of the place, such as `#/paths/~1pets/get/parameters/0`.
    public let location: String
    /// What is wrong there.
    public let reason: String

    public init(location: String, reason: String) {
        self.location = location
        self.reason = reason
    }

    public var description: String { "\(location): \(reason)" }
}
