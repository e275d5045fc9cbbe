import Foundation
import Tapedeck

/// The access and refresh tokens, replaced when the client refreshes.
public final class Credentials: @unchecked Sendable {
    // Guarded by `lock`.
    private var tokens: (access: String, refresh: String)
    private let lock = NSLock()

    /// Creates credentials.
    public init(accessToken: String, refreshToken: String) {
        tokens = (accessToken, refreshToken)
    }

    /// The current access token.
    public var accessToken: String { guarded { $0.access } }
    /// The current refresh token.
    public var refreshToken: String { guarded { $0.refresh } }

    private func guarded<Result>(_ body: (inout (access: String, refresh: String)) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&tokens)
    }

    /// Stores a new access token.
    func update(accessToken: String) {
        guarded { $0.access = accessToken }
    }
}
