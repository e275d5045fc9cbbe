import Foundation

/// How a recorded response body goes to one client: chosen by ``ResponseEncoding/negotiate(for:acceptEncoding:)``
/// from the recorded `Content-Encoding` and the request's `Accept-Encoding`, so that the replay
/// server and the connector answer alike.
package enum ResponseEncoding: Sendable, Hashable {
    /// The stored bytes and the recorded headers as they are: no coding was recorded, or one
    /// Tapedeck does not apply (br, zstd), or a body kept still encoded.
    case asRecorded
    /// The stored (decoded) bytes without `Content-Encoding`.
    case identity
    /// The stored bytes encoded with this coding, named in `Content-Encoding`.
    case encoded(ContentCoding)

    /// The encoding for a recorded response and a request's `Accept-Encoding` header (nil when absent).
    ///
    /// A gzip or deflate body goes in the recorded coding when the client accepts it, else in the
    /// acceptable coding of highest weight among gzip, deflate and identity (ties: the recorded
    /// coding, then identity). A client that sends no `Accept-Encoding` (Python's urllib, Java's
    /// HttpClient) gets identity, and so does one that accepts nothing Tapedeck can produce.
    package static func negotiate(for response: CassetteResponse, acceptEncoding: String?) -> ResponseEncoding {
        negotiate(contentEncoding: response.headers["Content-Encoding"], bodyIsEncoded: response.body.isEncoded,
                  acceptEncoding: acceptEncoding)
    }

    /// The encoding for a recorded `Content-Encoding` value and a request's `Accept-Encoding` value.
    package static func negotiate(contentEncoding: String?, bodyIsEncoded: Bool, acceptEncoding: String?) -> ResponseEncoding {
        guard !bodyIsEncoded, let recorded = ContentCoding(header: contentEncoding) else { return .asRecorded }
        guard let acceptEncoding else { return .identity }
        let accepted = AcceptEncoding(acceptEncoding)
        let other: ContentCoding = recorded == .gzip ? .deflate : .gzip
        let choices: [(ResponseEncoding, Double)] = [
            (.encoded(recorded), accepted.quality(of: recorded.rawValue) ?? 0),
            (.identity, accepted.quality(of: "identity") ?? 0),
            (.encoded(other), accepted.quality(of: other.rawValue) ?? 0),
        ]
        var best: (ResponseEncoding, Double)?
        for choice in choices where choice.1 > 0 && choice.1 > (best?.1 ?? 0) { best = choice }
        return best?.0 ?? .identity
    }

    /// The headers and body to send for `response`: `Content-Encoding` set or removed, and
    /// `Content-Length` the size of the body sent when the status carries one (kept as recorded otherwise).
    package func apply(to response: CassetteResponse) throws(ContentCodingError) -> (headers: HeaderList, body: Data) {
        var headers = response.headers
        let body: Data
        switch self {
        case .asRecorded:
            body = response.body.data
        case .identity:
            body = response.body.data
            headers.remove("Content-Encoding")
        case .encoded(let coding):
            body = try coding.encode(response.body.data)
            headers.set(name: "Content-Encoding", value: coding.rawValue)
        }
        if ResponseBodyRule.statusAllowsBody(response.status) {
            headers.set(name: "Content-Length", value: String(body.count))
        }
        return (headers, body)
    }
}
