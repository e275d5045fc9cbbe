import Foundation

/// Whether an HTTP answer carries a body: the one place that knows 1xx, 204 and 304 answers, and
/// every answer to HEAD, never do (RFC 9110 sections 6.4.1, 9.3.2, 15.3.5 and 15.4.5), whatever a cassette holds.
public enum ResponseBodyRule {
    /// Whether a response with this status may carry a body: never 1xx, 204 or 304.
    public static func statusAllowsBody(_ status: Int) -> Bool {
        !(100...199).contains(status) && status != 204 && status != 304
    }

    /// Whether the answer to a request with this method sends a body: never for HEAD (a recorded
    /// GET served for a HEAD sends its head only), never for a status that forbids one.
    public static func sendsBody(status: Int, requestMethod: String) -> Bool {
        statusAllowsBody(status) && !requestMethod.caseInsensitiveEquals("HEAD")
    }
}
