import Foundation

/// A response.
public struct HARResponse: Sendable, Hashable, Codable {
    /// The status code; 0 for a request the browser never completed.
    public var status: Int
    /// The reason phrase.
    public var statusText: String?
    /// The protocol.
    public var httpVersion: String?
    /// Cookies set.
    public var cookies: [HARNameValue]?
    /// Headers in order.
    public var headers: [HARNameValue]
    /// The body.
    public var content: HARContent
    /// The Location of a redirect.
    public var redirectURL: String?
    /// Header bytes, -1 when unknown.
    public var headersSize: Int?
    /// Body bytes as transferred, -1 when unknown.
    public var bodySize: Int?

    /// Creates a response.
    public init(status: Int, statusText: String, headers: [HARNameValue], cookies: [HARNameValue],
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
