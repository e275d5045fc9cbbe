import Foundation

/// A request URL split into scheme, host, port, path and query, without Foundation's URL parsing cost.
public struct RequestTarget: Sendable, Hashable {
    /// `http` or `https`, lowercased; nil for an origin-form URL.
    public var scheme: String?
    /// The host, lowercased; nil for an origin-form URL.
    public var host: String?
    /// The port, explicit or the scheme's default; nil for an origin-form URL.
    public var port: Int?
    /// The path as sent, at least `/`.
    public var path: String
    /// The query without its `?`, nil when there is none.
    public var query: String?

    /// Whether the URL names the server (absolute form).
    public var namesHost: Bool { host != nil }

    /// Splits a URL, absolute or origin-form.
    public init(_ url: String) {
        var rest = Substring(url)
        if let hashIndex = rest.firstIndex(of: "#") { rest = rest[..<hashIndex] }
        if !rest.hasPrefix("/"), let schemeEnd = rest.range(of: "://") {
            let scheme = rest[..<schemeEnd.lowerBound].lowercased()
            rest = rest[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            var authority = rest[..<authorityEnd]
            rest = rest[authorityEnd...]
            if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
            let (host, port) = RequestTarget.splitAuthority(authority)
            self.scheme = scheme
            self.host = host.lowercased()
            self.port = port ?? (scheme == "https" ? 443 : 80)
        }
        if let questionMark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: questionMark)...])
            rest = rest[..<questionMark]
        }
        path = rest.isEmpty ? "/" : String(rest)
    }

    /// `scheme://host:port`, for messages; nil for origin-form.
    public var origin: String? {
        guard let scheme, let host, let port else { return nil }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }

    private static func splitAuthority(_ authority: Substring) -> (String, Int?) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = authority[authority.index(after: authority.startIndex)..<close]
            let afterClose = authority[authority.index(after: close)...]
            return (String(host), afterClose.hasPrefix(":") ? Int(afterClose.dropFirst()) : nil)
        }
        if let colon = authority.lastIndex(of: ":") {
            return (String(authority[..<colon]), Int(authority[authority.index(after: colon)...]))
        }
        return (String(authority), nil)
    }
}
