import Foundation

/// The header fields of one message that concern only the connection it came on (RFC 9110
/// section 7.6.1): the hop-by-hop names (``HeaderList/isHopByHop(_:)``) and every name the
/// message's own `Connection` field lists (`Connection: X-Trace` makes `X-Trace` one). A proxy
/// forwards none of them, and a cassette keeps none.
public struct HopByHopFields: Sendable {
    /// The names the message's `Connection` fields list; none for most messages.
    private let nominated: [String]

    /// The fields of a message whose `Connection` fields have these values, as sent
    /// (comma-separated lists of names).
    public init<Values: Sequence>(connection values: Values) where Values.Element: StringProtocol {
        nominated = values.flatMap { value in
            value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// Whether the field named `name` concerns only the connection, whatever the case of its name.
    public func contains(_ name: String) -> Bool {
        HeaderList.isHopByHop(name) || nominated.contains { $0.caseInsensitiveEquals(name) }
    }
}

extension HeaderList {
    /// The list's hop-by-hop fields: the hop-by-hop names and those its `Connection` field lists.
    public var hopByHop: HopByHopFields {
        HopByHopFields(connection: values(for: "Connection"))
    }
}
