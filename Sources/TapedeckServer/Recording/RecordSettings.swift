import Foundation
import NIOCore
import TapedeckCore

/// What the recording proxy records and how it reaches the live service.
package struct RecordSettings: Sendable {
    /// The cassette file.
    package var cassette: URL
    /// The base URL of a reverse proxy, nil for a forward proxy.
    package var target: ReverseProxyTarget?
    /// The recording mode (default new-episodes).
    package var mode: RecordMode
    /// The redaction applied before anything is written.
    package var redaction: RedactionRules
    /// How upstream certificates are checked.
    package var trust: UpstreamTrust
    /// Hosts tunnelled untouched and not recorded.
    package var passthroughHosts: Set<String>
    /// How long the upstream may stay silent before the answer is 504.
    package var upstreamTimeout: TimeAmount
    /// The most connections open to one upstream at once, over all clients; past it the answer is 503.
    package var maxUpstreamConnections = 128
    /// How matching and playback work for what the cassette already holds.
    package var playback: PlaybackOptions
    /// Stubs from `--stubs` files: they answer before the network.
    package var stubs: [Stub] = []
    /// The clock of expiry and of `{{now}}`.
    package var hooks = PlaybackHooks()
    /// The API document each recorded exchange is checked against (`--openapi`), noting what breaks it.
    package var contract: APIContract?

    /// Creates settings with the documented defaults.
    package init(cassette: URL, target: ReverseProxyTarget? = nil, mode: RecordMode = .newEpisodes, redaction: RedactionRules = .defaults,
                trust: UpstreamTrust = UpstreamTrust(), passthroughHosts: Set<String> = [],
                upstreamTimeout: TimeAmount = .seconds(60), playback: PlaybackOptions = PlaybackOptions()) {
        self.cassette = cassette
        self.target = target
        self.mode = mode
        self.redaction = redaction
        self.trust = trust
        self.passthroughHosts = Set(passthroughHosts.map { $0.lowercased() })
        self.upstreamTimeout = upstreamTimeout
        self.playback = playback
    }
}

/// The base URL of a reverse proxy (`https://api.example.com/v1`), which origin-form requests are sent to.
package struct ReverseProxyTarget: Sendable, Hashable {
    /// `scheme://authority`, as the recorded URLs start.
    let origin: String
    /// The base URL's path without trailing slashes, put before each request's path.
    let prefix: String
    let scheme: String
    let host: String
    let port: Int
    /// `host` or `host:port`: the `Host` header the upstream gets.
    let authority: String

    /// Reads a base URL: http or https, a host, an optional path, no query.
    package init(_ text: String) throws(ReverseProxyTargetError) {
        let parts = RequestTarget(text)
        guard let scheme = parts.scheme, scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty,
              let port = parts.port, let authority = parts.authority, parts.query == nil else {
            throw ReverseProxyTargetError(text: text)
        }
        var prefix = parts.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.origin = "\(scheme)://\(authority)"
        self.prefix = prefix
        self.scheme = scheme
        self.host = host
        self.port = port
        self.authority = authority
    }

    /// The URL a request for `uri` (origin-form) goes to, and its parts, without parsing the base again.
    func target(for uri: String) -> (url: String, target: RequestTarget) {
        var target = RequestTarget(prefix + uri)
        target.scheme = scheme
        target.host = host
        target.port = port
        return (origin + prefix + uri, target)
    }
}

/// A reverse proxy's target that is not an http or https base URL.
package struct ReverseProxyTargetError: Error, CustomStringConvertible, Sendable {
    /// What was given.
    package let text: String

    /// What is wrong, without the value itself (a command line's error names it already): the part
    /// of the URL at fault when there is one; a `host:port` (as gRPC addresses are written) gets the
    /// URL it stands for.
    package var reason: String {
        let parts = RequestTarget(text)
        guard text.contains("://"), let scheme = parts.scheme else {
            return Self.expected + "; for a plaintext service write http://\(text) (as for gRPC without TLS)"
        }
        if scheme != "http" && scheme != "https" { return Self.expected + ", not \(scheme)://" }
        if parts.host?.isEmpty != false { return Self.expected + ": this one names no host" }
        if let query = parts.query {
            return "a target takes no query (?\(query)): give the base URL, and each request sends its own query"
        }
        return Self.expected
    }

    private static let expected = "the target must be an http or https base URL such as https://api.example.com"

    package var description: String { "\"\(text)\" is not a target: \(reason)" }
}

/// A recording setting that cannot be used: an unreadable certificate, no upstream host.
package struct SettingsError: Error, CustomStringConvertible, Sendable {
    /// What is wrong and what would be right.
    package let message: String

    /// Creates an error.
    package init(message: String) { self.message = message }

    package var description: String { message }
}
