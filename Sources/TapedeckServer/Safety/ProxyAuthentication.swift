import HTTPTypes
import NIOHTTP1

/// The `--proxy-auth` rule, as the connection's state machine applies it to each request head:
/// `Proxy-Authorization: Basic` with the credentials, removed before the request goes further so
/// it is never forwarded nor recorded.
///
/// A request for the server's own admin paths (`/__tapedeck/…`, when the admin API is on) may
/// send the same credentials as `Authorization: Basic` instead, and is asked with 401 and
/// `WWW-Authenticate`: a browser sends `Proxy-Authorization` only to a proxy it is set to use,
/// never to a page it opens, so this is how the inspector page opens under `--proxy-auth`.
/// Proxy authentication never loosens the admin guard (``AdminGuard``).
struct ProxyAuthentication: Sendable {
    /// What becomes of a request head.
    enum Verdict: Equatable {
        /// The credentials are right; they were removed from the head.
        case admitted
        /// They are missing or wrong: ask for them (401 for an admin path, else 407).
        case challenged(toAdmin: Bool)
    }

    /// The credentials every request must carry.
    let credentials: ProxyCredentials
    /// Whether `/__tapedeck/…` is the admin API (not `--no-admin`), which takes `Authorization` too.
    let adminEnabled: Bool

    /// Checks a request head, removing the credentials it carries when they are right.
    func admit(_ head: inout HTTPRequestHead) -> Verdict {
        let toAdmin = AdminEndpoints.addresses(head.uri, enabled: adminEnabled)
        guard credentials.accepts(head.headers.first(name: "Proxy-Authorization"))
            || (toAdmin && credentials.accepts(head.headers.first(name: "Authorization"))) else {
            return .challenged(toAdmin: toAdmin)
        }
        head.headers.remove(name: "Proxy-Authorization")
        if toAdmin { head.headers.remove(name: "Authorization") }
        return .admitted
    }

    /// The answer that asks for the credentials.
    static func challenge(toAdmin: Bool) -> Refusal {
        toAdmin
            ? Refusal(.unauthorized, code: "proxy-auth-required",
                      "authentication required: send Authorization: Basic with the --proxy-auth credentials",
                      extraHeaders: [.wwwAuthenticate: "Basic realm=\"tapedeck\""])
            : Refusal(.proxyAuthenticationRequired, code: "proxy-auth-required",
                      "proxy authentication required: send Proxy-Authorization: Basic (tapedeck was started with --proxy-auth)",
                      extraHeaders: [.proxyAuthenticate: "Basic realm=\"tapedeck\""])
    }
}
