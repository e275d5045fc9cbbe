import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import TapedeckNIO
import Tapedeck

/// A live ``/Tapedeck/HTTPConnector`` on AsyncHTTPClient: what ``ConnectorHTTPClient/recording(cassette:live:mode:redaction:options:environment:)``
/// records through.
public struct AsyncHTTPClientConnector: HTTPConnector {
    /// The client requests go through.
    public let client: HTTPClient
    /// How long one request may take.
    public let timeout: TimeAmount
    /// The largest response body collected, and the most a gzip or deflate body is decoded to (a
    /// body that decodes further, a compression bomb, throws rather than filling memory).
    public let maxBodyBytes: Int

    /// Sends through `client`.
    public init(client: HTTPClient, timeout: TimeAmount = .seconds(60), maxBodyBytes: Int = 64 << 20) {
        self.client = client
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// Sends the request and collects the whole body, decoding gzip and deflate as URLSession
    /// does (AsyncHTTPClient hands bodies over as sent), so recordings store them decoded.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        guard request.scheme != nil, request.authority != nil else { throw URLSessionConnectorError.noURL(request.path ?? "") }
        var (response, data) = try await client.exchange(request, body: body, timeout: timeout, bodyLimit: maxBodyBytes)
        if let coding = ContentCoding(header: response.headerFields[.contentEncoding]) {
            data = try coding.decode(data, limit: maxBodyBytes)
        }
        return (response, data)
    }
}
