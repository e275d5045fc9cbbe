import Foundation

/// A request URL split into scheme, host, port, path and query.
///
/// Split on the UTF-8 bytes, without Foundation's URL parsing or grapheme breaking:
/// this runs once per request on the replay hot path.
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
        let bytes = url.utf8
        var rest = bytes[...]
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        if rest.first != UInt8(ascii: "/"), let schemeEnd = Self.findSchemeSeparator(in: rest) {
            let scheme = String(Substring(rest[..<schemeEnd])).lowercased()
            rest = rest[bytes.index(schemeEnd, offsetBy: 3)...]
            let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
            var authority = rest[..<authorityEnd]
            rest = rest[authorityEnd...]
            if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[bytes.index(after: at)...] }
            let (host, port) = Self.splitAuthority(Substring(authority))
            self.scheme = scheme
            self.host = host.lowercased()
            self.port = port ?? Self.defaultPort(scheme: scheme)
        }
        if let questionMark = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = String(Substring(rest[bytes.index(after: questionMark)...]))
            rest = rest[..<questionMark]
        }
        path = rest.isEmpty ? "/" : String(Substring(rest))
    }

    /// `scheme://host:port`, for messages; nil for origin-form.
    public var origin: String? {
        guard let scheme, let host, let port else { return nil }
        return "\(scheme)://\(Self.urlHost(host)):\(port)"
    }

    /// `host` or `host:port` as `Host` headers and URLs write it (no default port); nil for origin-form.
    public var authority: String? {
        guard let scheme, let host, let port else { return nil }
        return Self.authority(scheme: scheme, host: host, port: port)
    }

    /// A host as a URL writes it: an IPv6 address in brackets.
    public static func urlHost(_ host: String) -> String {
        host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
    }

    /// `host` or `host:port`, the port left out when it is the scheme's default: a URL's
    /// authority, and the `Host` header sent to that origin.
    public static func authority(scheme: String, host: String, port: Int) -> String {
        port == defaultPort(scheme: scheme) ? urlHost(host) : "\(urlHost(host)):\(port)"
    }

    /// Where `://` starts in `haystack`.
    private static func findSchemeSeparator(in haystack: Substring.UTF8View) -> String.Index? {
        var index = haystack.startIndex
        while let colon = haystack[index...].firstIndex(of: UInt8(ascii: ":")) {
            let after = haystack[haystack.index(after: colon)...]
            if after.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) { return colon }
            index = haystack.index(after: colon)
        }
        return nil
    }

    /// The port a scheme implies: 443 for `https` (and `wss`), 80 otherwise.
    public static func defaultPort(scheme: String) -> Int {
        scheme == "https" || scheme == "wss" ? 443 : 80
    }

    /// Splits `host[:port]` (or `[v6][:port]`); the port is nil when absent or not a number.
    public static func splitAuthority(_ authority: Substring) -> (host: String, port: Int?) {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = authority[authority.index(after: authority.startIndex)..<close]
            let afterClose = authority[authority.index(after: close)...]
            return (String(host), afterClose.hasPrefix(":") ? Int(afterClose.dropFirst()) : nil)
        }
        if let colon = authority.utf8.lastIndex(of: UInt8(ascii: ":")) {
            return (String(authority[..<colon]), Int(authority[authority.index(after: colon)...]))
        }
        return (String(authority), nil)
    }
}
