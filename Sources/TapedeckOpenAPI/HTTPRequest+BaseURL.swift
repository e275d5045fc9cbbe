import Foundation
import HTTPTypes
import OpenAPIRuntime

extension HTTPRequest {
    /// The request with scheme, authority and the base URL's path prefix, as a connector needs it.
    func resolved(against baseURL: URL) -> HTTPRequest {
        var resolved = self
        guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false), let host = components.host else {
            return resolved
        }
        resolved.scheme = components.scheme ?? "https"
        resolved.authority = components.port.map { "\(host):\($0)" } ?? host
        var prefix = components.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let path = self.path ?? "/"
        resolved.path = prefix + (path.hasPrefix("/") ? path : "/" + path)
        return resolved
    }
}

/// Reads a whole OpenAPI body, as a cassette stores it.
func collect(_ body: HTTPBody?, upTo limit: Int) async throws -> Data? {
    guard let body else { return nil }
    return try await Data(collecting: body, upTo: limit)
}
