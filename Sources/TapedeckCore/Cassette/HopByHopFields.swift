import Foundation

/// The header fields of one message that concern only the connection it came on (RFC 9110
/// section 7.6.1): the hop-by-hop names (``HeaderList/isHopByHop(_:)``) and every name the
/// message's own `Connection` field lists (`Connection: X-Trace` makes `X-Trace` one). A proxy
/// forwards none of them, and a cassette keeps none.
public struct HopByHopFields: Sendable {
    /// The names the message's `Connection` fields list; none for most messages.
    private let nominated: [String]

    /// The fields of a message whose `Connection` fields have these values, as sent
    /// (comma-separated lists of names). An array rather than any sequence: asked of every
    /// request, a generic initializer ran unspecialized across modules (0.5 µs a request).
    public init(connection values: [String]) {
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

extension HopByHopFields {
    /// Whether a trailer field named `name` is left out of a message whose head has these
    /// hop-by-hop fields (RFC 9110 section 6.5.1): one that concerns only the connection, or
    /// `Content-Length`, which frames the message its trailers end. Sent, such a trailer is a
    /// protocol error to an HTTP/2 client and a second framing to an HTTP/1.1 one.
    public func excludesTrailer(_ name: String) -> Bool {
        contains(name) || name.caseInsensitiveEquals("Content-Length")
    }
}

extension HeaderList {
    /// These fields as the trailers of a message whose head is `head`: without those
    /// ``HopByHopFields/excludesTrailer(_:)`` leaves out. One rule for recording, forwarding,
    /// replay and the connectors.
    public func asTrailers(of head: HeaderList) -> HeaderList {
        let hopByHop = head.hopByHop
        guard fields.contains(where: { hopByHop.excludesTrailer($0.name) }) else { return self }
        var kept = self
        kept.removeAll { hopByHop.excludesTrailer($0.name) }
        return kept
    }
}
