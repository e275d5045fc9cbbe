import Foundation

/// The `Range`, `If-None-Match` and `If-Modified-Since` values of a request: they take part in
/// the default match as a preference, not as a key (see ``Matcher/matches(_:)``).
struct ConditionalHeaders: Sendable, Hashable {
    /// The names compared, lowercased.
    static let names = ["range", "if-none-match", "if-modified-since"]

    /// Each name's values in order, trimmed, in the order of ``names``.
    let values: [[String]]

    /// The request's values; nil when it sends none of these headers.
    init?(_ headers: HeaderList) {
        guard headers.contains("Range") || headers.contains("If-None-Match") || headers.contains("If-Modified-Since") else {
            return nil
        }
        values = Self.names.map { name in headers.values(for: name).map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Whether a response is partial or "not modified": what a request without these headers must
    /// not receive while a full answer exists.
    static func isPartialOrNotModified(status: Int) -> Bool {
        status == 206 || status == 304
    }
}
