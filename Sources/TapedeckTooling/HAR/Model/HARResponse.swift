import Foundation

/// A response.
package struct HARResponse: Sendable, Hashable, Codable {
    /// The status code; 0 for a request the browser never completed.
    package var status: Int
    /// The reason phrase.
    package var statusText: String?
    /// The protocol.
    package var httpVersion: String?
    /// Cookies set.
    package var cookies: [HARNameValue]?
    /// Headers in order.
    package var headers: [HARNameValue]
    /// The body.
    package var content: HARContent
    /// The Location of a redirect.
    package var redirectURL: String?
    /// Header bytes, -1 when unknown.
    package var headersSize: Int?
    /// Body bytes as transferred, -1 when unknown.
    package var bodySize: Int?
    /// Trailing headers (`_trailers`, Tapedeck's own field: HAR has none).
    package var trailers: [HARNameValue]?

    enum CodingKeys: String, CodingKey {
        case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize
        case trailers = "_trailers"
    }

    /// Creates a response.
    package init(status: Int, statusText: String, headers: [HARNameValue], cookies: [HARNameValue],
                content: HARContent, redirectURL: String, bodySize: Int, httpVersion: String? = nil,
                trailers: [HARNameValue]? = nil) {
        self.status = status
        self.statusText = statusText
        self.httpVersion = httpVersion.map { $0 == "2" ? "HTTP/2" : "HTTP/\($0)" } ?? "HTTP/1.1"
        self.trailers = trailers
        self.cookies = cookies
        self.headers = headers
        self.content = content
        self.redirectURL = redirectURL
        self.headersSize = -1
        self.bodySize = bodySize
    }
}
