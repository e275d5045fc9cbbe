import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tapedeck

/// A swift-openapi-runtime `ClientMiddleware` that records through whatever transport comes
/// next, with the modes and redaction of ``RecordingConnector`` (`TAPEDECK_MODE` overrides the mode).
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
}

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

/// The middleware's connector was called outside `intercept`.
struct RecordingMiddlewareError: Error, CustomStringConvertible {
    var description: String { "RecordingMiddleware's connector can only forward from inside intercept(_:body:baseURL:operationID:next:)" }
}
