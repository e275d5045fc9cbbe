import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tapedeck

/// A swift-openapi-runtime `ClientMiddleware` that records through whatever transport comes
/// next, with the modes and redaction of ``/Tapedeck/RecordingConnector`` (`TAPEDECK_MODE` overrides the mode).
///
/// ```swift
/// let client = Client(serverURL: serverURL, transport: URLSessionTransport(),
///                     middlewares: [try RecordingMiddleware(cassette: URL(filePath: "cassettes/users.json"))])
/// ```
public struct RecordingMiddleware: ClientMiddleware {
    /// The recording connector; its live side is the rest of the middleware chain.
    public let connector: RecordingConnector
    /// The largest body read, in bytes.
    public let maxBodyBytes: Int

    /// Opens a cassette for recording.
    public init(cassette file: URL, mode: RecordMode = .newEpisodes, redaction: RedactionRules = .defaults,
                options: PlaybackOptions = PlaybackOptions(), maxBodyBytes: Int = 16 << 20,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.connector = try RecordingConnector(live: NextHopConnector(), cassette: file, mode: mode, redaction: redaction,
                                                options: options, environment: environment)
        self.maxBodyBytes = maxBodyBytes
    }

    /// Replays what the cassette has; sends the rest through `next` and records it.
    public func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                          next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        let data = try await collect(body, upTo: maxBodyBytes)
        let limit = maxBodyBytes
        let (response, responseData) = try await withoutActuallyEscaping(next) { next in
            let hop = NextHop(request: request, baseURL: baseURL, maxBodyBytes: limit, next: next)
            return try await NextHop.$current.withValue(hop) {
                try await connector.send(request.resolved(against: baseURL), body: data)
            }
        }
        return (response, HTTPBody(responseData))
    }

    /// Writes everything recorded so far to disk now.
    public func flush() throws {
        try connector.flush()
    }

    /// Writes everything recorded and ends the recording: another recorder may then open the
    /// cassette, which no two record at once (it is also ended when this is released).
    public func finish() throws {
        try connector.finish()
    }
}
