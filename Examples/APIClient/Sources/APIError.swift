import Foundation

/// What went wrong with an API call.
public enum APIError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A status the response spec does not accept.
    case unexpectedStatus(Int, body: String)
    /// The body is not the expected model.
    case undecodable(type: String, reason: String)
    /// Still 401 after refreshing the token.
    case unauthorized
    /// A download could not be written.
    case notWritten(file: String, reason: String)

    public var description: String {
        switch self {
        case .unexpectedStatus(let code, let body): return "unexpected status \(code): \(body)"
        case .undecodable(let type, let reason): return "the response is not a \(type): \(reason)"
        case .unauthorized: return "still unauthorized after refreshing the access token"
        case .notWritten(let file, let reason): return "could not write \(file): \(reason)"
        }
    }
}
