import Foundation
import Tapedeck

/// The access and refresh tokens, replaced when the client refreshes.
public final class Credentials: Sendable {
    private let tokens: Locked<(access: String, refresh: String)>

    /// Creates credentials.
    public init(accessToken: String, refreshToken: String) {
        tokens = Locked((accessToken, refreshToken))
    }

    /// The current access token.
    public var accessToken: String { tokens.withLock { $0.access } }
    /// The current refresh token.
    public var refreshToken: String { tokens.withLock { $0.refresh } }

    /// Stores a new access token.
    func update(accessToken: String) {
        tokens.withLock { $0.access = accessToken }
    }
}
