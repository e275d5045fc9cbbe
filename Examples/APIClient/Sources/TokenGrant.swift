import Foundation

/// The answer of the token endpoint.
struct TokenGrant: Decodable, Sendable {
    /// The new access token.
    var accessToken: String

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
    }
}
