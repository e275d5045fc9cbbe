import AsyncHTTPClient
import Foundation
import HTTPTypes
import Logging
import NIOCore
import Tapedeck

/// An ``HTTPClientExecuting`` answered by a Tapedeck connector: replays a cassette (with the
/// same matching, exhaustion, latency and stubs as every other door) or records through a live
/// `HTTPClient`, and never opens a socket when replaying.
///
/// ```swift
/// let client = try ConnectorHTTPClient.replaying(cassette: URL(filePath: "cassettes/weather.json"))
/// let response = try await client.execute(HTTPClientRequest(url: "https://api.example.com/today"), timeout: .seconds(5))
/// ```
///
/// A request that matches nothing throws `UnmatchedRequestError` (the replay server's diagnosis);
/// a response that takes longer than `timeout` (recorded latency included) throws
/// `HTTPClientError.deadlineExceeded`, as `HTTPClient` does.
public struct ConnectorHTTPClient: HTTPClientExecuting {
    /// The connector that answers.
    public let connector: any HTTPConnector
    /// Bytes per body part handed to the caller: the body streams as `HTTPClient`'s does.
    public let partSize: Int

    /// Answers requests from any connector.
    public init(connector: any HTTPConnector, partSize: Int = 16 * 1024) {
        self.connector = connector
        self.partSize = max(1, partSize)
    }

    /// Replays a cassette file.
    public static func replaying(cassette file: URL, options: PlaybackOptions = PlaybackOptions()) throws -> ConnectorHTTPClient {
        ConnectorHTTPClient(connector: try CassetteConnector(cassette: file, options: options))
    }

    /// Records through `live` into a cassette (`TAPEDECK_MODE` overrides `mode`); call
    /// `flush()` on ``connector`` (a `RecordingConnector`) to save before the process ends.
    public static func recording(cassette file: URL, live: HTTPClient, mode: RecordMode = .newEpisodes,
                                 redaction: RedactionRules = .defaults, options: PlaybackOptions = PlaybackOptions(),
                                 environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ConnectorHTTPClient {
        ConnectorHTTPClient(connector: try RecordingConnector(
            live: AsyncHTTPClientConnector(client: live), cassette: file, mode: mode, redaction: redaction,
            options: options, environment: environment))
    }

    /// Reads the request's body, sends it to the connector and hands back the answer with a streaming body.
    public func execute(_ request: HTTPClientRequest, timeout: TimeAmount, logger: Logger?) async throws -> HTTPClientResponse {
        let (head, body) = try await request.tapedeckRequest()
        let (response, data) = try await withDeadline(timeout) { try await connector.send(head, body: body) }
        return HTTPClientResponse(response, body: data, partSize: partSize)
    }

    /// Runs `work`, failing with `deadlineExceeded` when it takes longer than `timeout`.
    private func withDeadline<Value: Sendable>(_ timeout: TimeAmount,
                                               _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, timeout.nanoseconds)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw HTTPClientError.deadlineExceeded }
            return value
        }
    }
}
