import Foundation

/// A request.
package struct HARRequest: Sendable, Hashable, Codable {
    /// The method.
    package var method: String
    /// The absolute URL.
    package var url: String
    /// The protocol, such as `HTTP/1.1`.
    package var httpVersion: String?
    /// Cookies sent.
    package var cookies: [HARNameValue]?
    /// Headers in order.
    package var headers: [HARNameValue]
    /// Query parameters.
    package var queryString: [HARNameValue]?
    /// The body, if any.
    package var postData: HARPostData?
    /// Header bytes, -1 when unknown.
    package var headersSize: Int?
    /// Body bytes, -1 when unknown.
    package var bodySize: Int?
    /// Tapedeck's custom field: the cassette URL was origin-form (`/path`), sent straight to the replay server.
    package var originForm: Bool?

    private enum CodingKeys: String, CodingKey {
        case method, url, httpVersion, cookies, headers, queryString, postData, headersSize, bodySize
        case originForm = "_originForm"
    }

    /// Creates a request.
    package init(method: String, url: String, headers: [HARNameValue], queryString: [HARNameValue],
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
