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

    /// Creates a response.
    package init(status: Int, statusText: String, headers: [HARNameValue], cookies: [HARNameValue],
                content: HARContent, redirectURL: String, bodySize: Int) {
        self.status = status
        self.statusText = statusText
        self.httpVersion = "HTTP/1.1"
        self.cookies = cookies
        self.headers = headers
        self.content = content
        self.redirectURL = redirectURL
        self.headersSize = -1
        self.bodySize = bodySize
    }
}
