import Foundation
import HTTPTypes
import TapedeckCore

/// What keeps a browser elsewhere out of the admin API (`/__tapedeck/…`), which can add stubs,
/// empty the journal and read every exchange. An admin request is answered only when:
/// - its `Host` is the server's own: a loopback name (`127.0.0.1`, `localhost`, `[::1]`), the
///   name it listens on, or one given with `--admin-host`, with the port it listens on if any (a page
///   on a name the attacker controls that resolves to 127.0.0.1, DNS rebinding, is refused);
/// - its `Origin`, when there is one, is that same server (a page on another origin is refused,
///   whatever its mode: `no-cors` fetches and forms send `Origin` on every POST);
/// - a `POST`, `PUT` or `PATCH` says `Content-Type: application/json` (a form or a `text/plain`
///   body, which a page elsewhere can send without asking, is refused). A `DELETE` needs no
///   body: no page can send one to another origin without a CORS preflight, which is refused.
///
/// Refusals are 403 (415 for the type) with the reason. Proxy authentication does not loosen
/// any of this: a login a browser cached is sent by any page.
struct AdminGuard: Sendable {
    /// The names the admin API answers to, lowercased, without brackets.
    private let names: Set<String>

    /// - Parameters:
    ///   - listeningHost: the address the server binds.
    ///   - extraNames: names given with `--admin-host`.
    init(listeningHost: String, extraNames: [String]) {
        names = Set((["127.0.0.1", "localhost", "::1", listeningHost] + extraNames).map(Self.bare))
    }

    /// The guard of a server with this configuration.
    init(_ configuration: ServerConfiguration) {
        self.init(listeningHost: configuration.host, extraNames: configuration.adminHosts)
    }

    /// Why an admin request is refused, or nil when it may be answered.
    /// - Parameter port: the port the request arrived on.
    func refusal(for head: HTTPRequest, port: Int?) -> (status: HTTPResponse.Status, reason: String)? {
        guard let host = head.authority, isOwn(authority: host, port: port) else {
            return (.forbidden, "admin paths answer only a Host that is this server's own (a loopback name or --admin-host, with its port)")
        }
        if let origin = head.headerFields[values: .origin].first {
            let prefix = "http://"
            guard origin.lowercased().hasPrefix(prefix), isOwn(authority: String(origin.dropFirst(prefix.count)), port: port) else {
                return (.forbidden, "admin paths answer only pages of this server: Origin \(origin) is another site's")
            }
        }
        if head.method == .options {
            return (.forbidden, "admin paths allow no cross-origin requests")
        }
        if [.post, .put, .patch].contains(head.method) {
            let mediaType = head.headerFields[values: .contentType].first?.split(separator: ";").first
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard mediaType == "application/json" else {
                return (.unsupportedMediaType, "admin writes take Content-Type: application/json")
            }
        }
        return nil
    }

    /// Whether `name[:port]` names this server: one of its names, and its port when a port is given
    /// (a browser always gives it but for port 80, so a page on another port never matches).
    private func isOwn(authority: String, port: Int?) -> Bool {
        let (name, given) = RequestTarget.splitAuthority(Substring(authority))
        return names.contains(Self.bare(name)) && (given == nil || given == port)
    }

    private static func bare(_ name: String) -> String {
        var name = name.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return name
    }
}
