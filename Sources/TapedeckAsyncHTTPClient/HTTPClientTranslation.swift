import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import TapedeckNIO

extension HTTPClientRequest {
    /// The swift-http-types request and the whole body a connector takes.
    func tapedeckRequest() async throws -> (HTTPRequest, Data?) {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else {
            throw HTTPClientError.invalidURL
        }
        let authority = components.port.map { "\(host):\($0)" } ?? host
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?\(query)" }
        let head = HTTPRequest(method: HTTPRequest.Method(method.rawValue) ?? .get, scheme: scheme,
                               authority: authority, path: path, headerFields: HTTPFields(headers))
        guard let body else { return (head, nil) }
        var data = Data()
        for try await part in body { data.append(contentsOf: part.readableBytesView) }
        return (head, data)
    }
}

extension HTTPClientResponse {
    /// An AsyncHTTPClient response for a connector's answer, the body handed over in parts of `partSize` bytes.
    init(_ response: HTTPResponse, body: Data, partSize: Int) {
        let parts = stride(from: 0, to: body.count, by: partSize).map { start in
            ByteBuffer(bytes: body[body.startIndex + start ..< body.startIndex + min(start + partSize, body.count)])
        }
        self.init(version: .http1_1, status: HTTPResponseStatus(response.status),
                  headers: HTTPHeaders(response.headerFields), body: .stream(BodyParts(parts: parts)))
    }
}

/// A response body's parts as an async sequence, like the parts `HTTPClient` reads from the network.
struct BodyParts: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let parts: [ByteBuffer]

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: IndexingIterator<[ByteBuffer]>
        mutating func next() async throws -> ByteBuffer? {
            try Task.checkCancellation()
            return remaining.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: parts.makeIterator()) }
}
