import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The swift-http-types request a connector takes, or nil when the URL is not absolute http(s).
    func httpRequest() -> HTTPRequest? {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let host = components.host else { return nil }
        let authority = components.port.map { "\(host):\($0)" } ?? host
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?\(query)" }
        var fields = HTTPFields()
        for (name, value) in allHTTPHeaderFields ?? [:] {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return HTTPRequest(method: HTTPRequest.Method(httpMethod ?? "GET") ?? .get, scheme: scheme,
                           authority: authority, path: path, headerFields: fields)
    }

    /// The body: `httpBody`, or `httpBodyStream` read to its end; nil when there is neither.
    func bodyData() throws(URLProtocolAdapterError) -> Data? {
        if let httpBody { return httpBody }
        guard let stream = httpBodyStream else { return nil }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 {
                throw .unreadableBodyStream(url: url?.absoluteString ?? "",
                                            reason: stream.streamError.map { "\($0)" } ?? "read failed")
            }
            if count == 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}

extension HTTPURLResponse {
    /// The header that carries a replayed 401's `WWW-Authenticate` challenge.
    static let movedChallengeHeader = "Tapedeck-WWW-Authenticate"

    /// A Foundation response for a connector's response; repeated header values are joined with ", ".
    ///
    /// On Linux a 401's `WWW-Authenticate` is handed over as `Tapedeck-WWW-Authenticate`: given a
    /// challenge, FoundationNetworking never completes a task served by a custom protocol (and
    /// with stored credentials would retry it on the live network with its own HTTP protocol).
    /// Apple's loading system delivers the header as it is.
    convenience init?(_ response: HTTPResponse, url: URL) {
        var headers: [String: String] = [:]
        for field in response.headerFields {
            var name = field.name.canonicalName
            #if canImport(FoundationNetworking)
            if response.status.code == 401 && field.name == .wwwAuthenticate { name = Self.movedChallengeHeader }
            #endif
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        self.init(url: url, statusCode: response.status.code, httpVersion: "HTTP/1.1", headerFields: headers)
    }
}
