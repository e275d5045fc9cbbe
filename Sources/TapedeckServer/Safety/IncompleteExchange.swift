/// The log line of an exchange that did not finish (upstream reset, truncated body, client gone) and so was not recorded.
enum IncompleteExchange {
    /// `not recorded: GET URL: the exchange did not finish ...`.
    static func logLine(method: String, url: String) -> String {
        "not recorded: \(method) \(url): the exchange did not finish (upstream reset or unreachable, truncated body, or client gone); the cassette keeps everything recorded before"
    }
}
