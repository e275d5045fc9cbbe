/// One way a recorded exchange breaks an API document's promise, placed for a reader:
/// `interactions[3] response.body $.user.age: expected integer, got string`.
public struct ContractViolation: Sendable, Hashable, CustomStringConvertible {
    /// Which half of the exchange.
    public enum Side: String, Sendable, Hashable {
        case request, response
    }

    /// The interaction's index in its cassette.
    public var interaction: Int
    /// The request or the response.
    public var side: Side
    /// Where in it: `path`, `method`, `status`, `body`, `header X-Request-Id`, `query limit`.
    public var place: String
    /// The JSON path inside a body, when the violation is there.
    public var path: String?
    /// What is wrong, in a few words.
    public var message: String

    public init(interaction: Int, side: Side, place: String, path: String? = nil, message: String) {
        self.interaction = interaction
        self.side = side
        self.place = place
        self.path = path
        self.message = message
    }

    /// `response.body $.user.age: expected integer, got string`: the violation without its interaction.
    public var line: String {
        "\(side.rawValue).\(place)\(path.map { " \($0)" } ?? ""): \(message)"
    }

    /// `interactions[3] response.body $.user.age: expected integer, got string`.
    public var description: String {
        "interactions[\(interaction)] \(line)"
    }
}
