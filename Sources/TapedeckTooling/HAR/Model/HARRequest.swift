import Foundation

/// A request.
public struct HARRequest: Sendable, Hashable, Codable {
    /// The method.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// The protocol, such as `HTTP/1.1`.
    public var httpVersion: String?
    /// Cookies sent.
    public var cookies: [HARNameValue]?
    /// Headers in order.
    public var headers: [HARNameValue]
    /// Query parameters.
    public var queryString: [HARNameValue]?
    /// The body, if any.
    public var postData: HARPostData?
    /// Header bytes, -1 when unknown.
    public var headersSize: Int?
    /// Body bytes, -1 when unknown.
    public var bodySize: Int?
    /// Tapedeck's custom field: the cassette URL was origin-form (`/path`), sent straight to the replay server.
    public var originForm: Bool?

    private enum CodingKeys: String, CodingKey {
        case method, url, httpVersion, cookies, headers, queryString, postData, headersSize, bodySize
        case originForm = "_originForm"
    }

    /// Creates a request.
    public init(method: String, url: String, headers: [HARNameValue], queryString: [HARNameValue],
                cookies: [HARNameValue], postData: HARPostData?, bodySize: Int, originForm: Bool? = nil) {
        self.method = method
        self.url = url
        self.httpVersion = "HTTP/1.1"
        self.cookies = cookies
        self.headers = headers
        self.queryString = queryString
        self.postData = postData
        self.headersSize = -1
        self.bodySize = bodySize
        self.originForm = originForm
    }
}
