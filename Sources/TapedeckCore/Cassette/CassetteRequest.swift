import Foundation

/// A request as a cassette stores it, and as the matcher sees an incoming one.
///
/// `url` is absolute (`https://api.example.com/users?id=1`) when the sender named
/// the host, as a proxy or the connector does; it is origin-form (`/users?id=1`)
/// for a request sent straight to the replay server, which then matches any host.
public struct CassetteRequest: Sendable, Hashable {
    /// The method, such as `GET`.
    public var method: String
    /// The absolute or origin-form URL.
    public var url: String
    /// The headers, without hop-by-hop ones.
    public var headers: HeaderList
    /// The body, decoded from any content coding.
    public var body: Body

    /// Creates a request.
    public init(method: String, url: String, headers: HeaderList = [:], body: Body = .empty) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The URL split into its parts.
    public var target: RequestTarget { RequestTarget(url) }

    /// The request as a log keeps it: its body cut to its first ``Body/logLimit`` bytes (``Body/logged``).
    public var logged: CassetteRequest {
        var logged = self
        logged.body.cut(to: Body.logLimit)
        return logged
    }
}

/// A response as a cassette stores it.
public struct CassetteResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The headers, without hop-by-hop ones; `Content-Encoding` is kept.
    public var headers: HeaderList
    /// The body, stored decoded when the content coding is gzip or deflate.
    public var body: Body
    /// The trailing headers sent after the body (HTTP/2 trailers, HTTP/1.1 chunked trailers; gRPC's
    /// `grpc-status` lives here), nil when the response had none.
    public var trailers: HeaderList?

    /// Creates a response.
    public init(status: Int, headers: HeaderList = [:], body: Body = .empty, trailers: HeaderList? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }

    /// The gzip or deflate coding replay applies to the stored body, if any: none for a body kept
    /// still encoded (``Body/isEncoded``), which is sent exactly as stored.
    package var contentCoding: ContentCoding? {
        body.isEncoded ? nil : ContentCoding(header: headers["Content-Encoding"])
    }

    /// The body as it goes on the wire as recorded: encoded again when it was recorded encoded.
    package func wireBody() throws(ContentCodingError) -> Data {
        guard let contentCoding else { return body.data }
        return try contentCoding.encode(body.data)
    }
}
