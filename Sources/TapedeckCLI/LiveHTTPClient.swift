import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import TapedeckNIO

/// The live service as `tapedeck drift` reaches it, over AsyncHTTPClient: SwiftNIO is in the
/// binary already, so the command links no Foundation networking (and no libcurl). Redirects are
/// not followed and bodies are not decoded, as the recording proxy passed them when it recorded.
struct LiveHTTPClient: Sendable {
    private let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                    configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
    /// How long each answer may take.
    let timeout: TimeAmount
    /// The most bytes of an answer's body taken: the servers' default `--max-body`.
    static let bodyLimit = 64 << 20

    /// Sends a request and takes its whole answer.
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await client.exchange(request, body: body, timeout: timeout, bodyLimit: Self.bodyLimit)
    }

    /// Closes the client's connections.
    func shutdown() async throws {
        try await client.shutdown()
    }
}
