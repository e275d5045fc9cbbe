/// The log line of an exchange that did not finish and so was not recorded.
enum IncompleteExchange {
    /// `not recorded: GET URL: CAUSE; ...`, the cause being what the client was told (or saw).
    static func logLine(method: String, url: String, cause: ExchangeFailure) -> String {
        "not recorded: \(method) \(url): \(cause); the cassette keeps everything recorded before"
    }
}
