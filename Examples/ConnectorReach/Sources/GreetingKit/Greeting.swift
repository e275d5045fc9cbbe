import AsyncHTTPClient
import Foundation
import HTTPTypes
import OpenAPIRuntime
import TapedeckAsyncHTTPClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What every client below fetches: `GET /plaintext?name=NAME` answers `Hello NAME!`.
public enum Greeting {
    /// The path and query for a name.
    static func path(for name: String) -> String { "/plaintext?name=\(name)" }
}

/// A client in the app style: it takes a session, `URLSession.shared` by default.
public struct URLSessionGreetingClient: Sendable {
    let baseURL: URL
    let session: URLSession

    /// A client on a session; production code passes nothing and gets the shared session.
    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    /// The greeting for a name.
    public func greeting(for name: String) async throws -> String {
        let (data, _) = try await session.data(from: URL(string: baseURL.absoluteString + Greeting.path(for: name))!)
        return String(decoding: data, as: UTF8.self)
    }
}

/// A server-side client on AsyncHTTPClient, through the protocol tests can replace.
public struct AsyncHTTPGreetingClient: Sendable {
    let baseURL: String
    let client: any HTTPClientExecuting

    /// A client on any `HTTPClientExecuting`: `HTTPClient.shared` in production.
    public init(baseURL: String, client: any HTTPClientExecuting) {
        self.baseURL = baseURL
        self.client = client
    }

    /// The greeting for a name.
    public func greeting(for name: String) async throws -> String {
        let response = try await client.execute(HTTPClientRequest(url: baseURL + Greeting.path(for: name)), timeout: .seconds(10))
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }
}

/// A client as swift-openapi-generator writes them: it sends through a `ClientTransport`.
public struct OpenAPIGreetingClient: Sendable {
    let serverURL: URL
    let transport: any ClientTransport

    /// A client on any transport.
    public init(serverURL: URL, transport: any ClientTransport) {
        self.serverURL = serverURL
        self.transport = transport
    }

    /// The greeting for a name.
    public func greeting(for name: String) async throws -> String {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: Greeting.path(for: name))
        let (_, body) = try await transport.send(request, body: nil, baseURL: serverURL, operationID: "getGreeting")
        guard let body else { return "" }
        return try await String(collecting: body, upTo: 1 << 20)
    }
}
