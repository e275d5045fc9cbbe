import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tapedeck

/// A swift-openapi-runtime `ClientTransport` answered by a connector: a ``/Tapedeck/CassetteConnector``
/// to replay a cassette, with the core's matching, exhaustion and latency.
///
/// ```swift
/// let client = Client(serverURL: URL(string: "https://api.example.com")!,
///                     transport: try CassetteTransport(cassette: URL(filePath: "cassettes/users.json")))
/// ```
public struct CassetteTransport: ClientTransport {
    /// The connector requests go to.
    public let connector: any HTTPConnector
    /// The largest request body read, in bytes.
    public let maxBodyBytes: Int

    /// Answers from any connector.
    public init(connector: any HTTPConnector, maxBodyBytes: Int = 16 << 20) {
        self.connector = connector
        self.maxBodyBytes = maxBodyBytes
    }

    /// Replays a cassette file.
    ///
    /// - Throws: `CassetteError` when the file is missing or invalid.
    public init(cassette file: URL, options: PlaybackOptions = PlaybackOptions(), maxBodyBytes: Int = 16 << 20) throws {
        self.init(connector: try CassetteConnector(cassette: file, options: options), maxBodyBytes: maxBodyBytes)
    }

    /// Sends the request, made absolute with `baseURL`, to the connector.
    ///
    /// - Throws: ``/Tapedeck/UnmatchedRequestError`` when the cassette has no answer.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL,
                     operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let data = try await collect(body, upTo: maxBodyBytes)
        let (response, responseData) = try await connector.send(request.resolved(against: baseURL), body: data)
        return (response, HTTPBody(responseData))
    }
}
