import HTTPTypes

extension AdminEndpoints {
    /// The methods an admin endpoint (the path after ``prefix``) takes, as `schema/admin-api.openapi.json`
    /// documents them; nil when no endpoint has that path. A 405 names them in `Allow`.
    static func methods(of endpoint: Substring) -> [HTTPRequest.Method]? {
        switch endpoint {
        case "reset", "verify": [.post]
        case "stubs": [.get, .head, .post, .delete]
        case _ where endpoint.hasPrefix("stubs/"): [.delete]
        case _ where endpoint.hasPrefix("exchanges/"): [.get, .head]
        case "ui", "ui/", "ui/style.css", "ui/app.js", "ui/live.js", "health", "journal", "unmatched", "exchanges",
             "cassettes", "events", "ca.pem", "openapi.json":
            [.get, .head]
        default: nil
        }
    }
}
