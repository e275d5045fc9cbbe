import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tapedeck

/// A plain live transport on URLSession for the record-path tests (what `URLSessionTransport` does).
struct LiveURLSessionTransport: ClientTransport {
    /// How many requests reached the network.
    let sent = Counter()

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        sent.increment()
        var absolute = request
        absolute.scheme = baseURL.scheme
        absolute.authority = baseURL.port.map { "\(baseURL.host!):\($0)" } ?? baseURL.host
        var data: Data?
        if let body { data = try await Data(collecting: body, upTo: 1 << 20) }
        let (response, responseData) = try await URLSessionConnector().send(absolute, body: data)
        return (response, HTTPBody(responseData))
    }
}
