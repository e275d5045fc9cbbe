import Foundation
import HTTPTypes
import Tapedeck

/// A small client for the example API: each call is a ``RequestSpec`` and a ``ResponseSpec``,
/// sent through an injected ``HTTPConnector`` (live in production, a cassette in tests).
/// A 401 refreshes the access token once and retries.
public struct APIClient: Sendable {
    /// The API's base URL, such as `http://api.example.test`.
    public let baseURL: URL
    /// Where requests go.
    public let connector: any HTTPConnector
    /// The tokens.
    public let credentials: Credentials

    /// Creates a client.
    public init(baseURL: URL, connector: any HTTPConnector, credentials: Credentials) {
        self.baseURL = baseURL
        self.connector = connector
        self.credentials = credentials
    }

    /// Sends a request and parses its response; refreshes the token and retries once on 401.
    public func send<Model>(_ request: RequestSpec, expecting response: ResponseSpec<Model>) async throws -> Model {
        var (httpResponse, data) = try await perform(request)
        if httpResponse.status.code == 401 && request.authenticated {
            try await refreshToken()
            (httpResponse, data) = try await perform(request)
            if httpResponse.status.code == 401 { throw APIError.unauthorized }
        }
        return try response.parse(httpResponse, data)
    }

    private func perform(_ request: RequestSpec) async throws -> (HTTPResponse, Data) {
        let (httpRequest, body) = request.httpRequest(baseURL: baseURL, bearer: credentials.accessToken)
        return try await connector.send(httpRequest, body: body)
    }

    private func refreshToken() async throws {
        let grant = try await send(
            RequestSpec(.post, "/oauth/token",
                        body: .form([("grant_type", "refresh_token"), ("refresh_token", credentials.refreshToken)]),
                        authenticated: false),
            expecting: .json(TokenGrant.self))
        credentials.update(accessToken: grant.accessToken)
    }
}
