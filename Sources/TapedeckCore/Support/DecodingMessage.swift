/// A decoding failure's message as a person reads it. Foundation's messages quote the offending
/// value whole, so one long value (70 KB of text where `"server"` or `"client"` was expected)
/// made an error line that long; the message is cut, saying how long it was.
package enum DecodingMessage {
    /// The most characters of a message shown.
    package static let limit = 300

    /// `message`, cut to ``limit`` characters when longer.
    package static func shortened(_ message: String) -> String {
        guard message.count > limit else { return message }
        return String(message.prefix(limit)) + "… (\(message.count) characters in all)"
    }
}
