import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

extension HTTPClient {
    /// Sends a swift-http-types request with its whole body, and takes the whole answer as sent
    /// (not decoded): what `AsyncHTTPClientConnector` and `tapedeck drift` send live requests through.
    ///
    /// - Parameter bodyLimit: the most bytes of the answer's body taken; a longer one throws.
    package func exchange(_ request: HTTPRequest, body: Data?, timeout: TimeAmount,
                          bodyLimit: Int) async throws -> (HTTPResponse, Data) {
        guard let scheme = request.scheme, let authority = request.authority else { throw HTTPClientError.invalidURL }
        var outgoing = HTTPClientRequest(url: "\(scheme)://\(authority)\(request.path ?? "/")")
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers = HTTPHeaders(request.headerFields)
        if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await execute(outgoing, timeout: timeout)
        let received = try await response.body.collect(upTo: bodyLimit)
        return (HTTPResponse(status: HTTPResponse.Status(response.status), headerFields: HTTPFields(response.headers)),
                Data(received.readableBytesView))
    }
}
