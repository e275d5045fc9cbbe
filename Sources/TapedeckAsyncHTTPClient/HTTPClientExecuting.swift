import AsyncHTTPClient
import Logging
import NIOCore

/// What code written against AsyncHTTPClient calls: `execute(_:timeout:logger:)`.
///
/// `HTTPClient` is a final class, so code under test depends on this protocol instead, and
/// tests pass a ``ConnectorHTTPClient`` that replays or records:
///
/// ```swift
/// struct WeatherService {
///     let client: any HTTPClientExecuting          // HTTPClient.shared in production
///     func today() async throws -> String {
///         let response = try await client.execute(HTTPClientRequest(url: "https://api.example.com/today"), timeout: .seconds(5))
///         return String(buffer: try await response.body.collect(upTo: 1 << 20))
///     }
/// }
/// ```
public protocol HTTPClientExecuting: Sendable {
    /// Sends a request and returns the response, whose body streams.
    func execute(_ request: HTTPClientRequest, timeout: TimeAmount, logger: Logger?) async throws -> HTTPClientResponse
}

extension HTTPClientExecuting {
    /// Sends a request without a logger.
    public func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        try await execute(request, timeout: timeout, logger: nil)
    }
}

/// The real client: production code passes an `HTTPClient` where it takes ``HTTPClientExecuting``.
extension HTTPClient: HTTPClientExecuting {}
