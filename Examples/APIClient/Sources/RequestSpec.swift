import Foundation
import HTTPTypes

/// Everything that describes one API request: method, path, query, headers and body.
public struct RequestSpec: Sendable {
    /// The method.
    public var method: HTTPRequest.Method
    /// The path below the client's base URL, such as `/users`.
    public var path: String
    /// Query parameters, in order.
    public var query: [URLQueryItem]
    /// Extra headers.
    public var headers: HTTPFields
    /// The body.
    public var body: RequestBody
    /// Whether the client adds its bearer token (and refreshes it on 401).
    public var authenticated: Bool

    /// Creates a request spec.
    public init(_ method: HTTPRequest.Method, _ path: String, query: [URLQueryItem] = [], headers: HTTPFields = [:],
                body: RequestBody = .none, authenticated: Bool = true) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.authenticated = authenticated
    }

    /// The swift-http-types request and its body, against a base URL.
    func httpRequest(baseURL: URL, bearer token: String?) -> (HTTPRequest, Data?) {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        var prefix = components.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        components.percentEncodedPath = prefix + path
        components.queryItems = query.isEmpty ? nil : query
        let host = components.host ?? "localhost"
        var request = HTTPRequest(method: method, scheme: components.scheme ?? "https",
                                  authority: components.port.map { "\(host):\($0)" } ?? host,
                                  path: components.percentEncodedPath + (components.percentEncodedQuery.map { "?\($0)" } ?? ""))
        request.headerFields = headers
        if request.headerFields[.accept] == nil { request.headerFields[.accept] = "application/json" }
        if let contentType = body.contentType { request.headerFields[.contentType] = contentType }
        if authenticated, let token { request.headerFields[.authorization] = "Bearer \(token)" }
        return (request, body.data)
    }
}
