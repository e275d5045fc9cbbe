import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tapedeck

/// The rest of a middleware chain for one request, handed to ``NextHopConnector`` in a task local.
struct NextHop: Sendable {
    /// The request as the chain knows it (path relative to the base URL).
    let request: HTTPRequest
    let baseURL: URL
    let maxBodyBytes: Int
    let next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)

    /// The chain of the request being intercepted in this task.
    @TaskLocal static var current: NextHop?
}

/// The live side of ``RecordingMiddleware``'s connector: calls the next middleware or the transport.
struct NextHopConnector: HTTPConnector {
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        guard let hop = NextHop.current else { throw RecordingMiddlewareError() }
        let (response, responseBody) = try await hop.next(hop.request, body.map { HTTPBody($0) }, hop.baseURL)
        return (response, try await collect(responseBody, upTo: hop.maxBodyBytes) ?? Data())
    }
}
