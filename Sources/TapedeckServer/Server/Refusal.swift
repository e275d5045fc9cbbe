import HTTPTypes
import NIOCore

/// An answer Tapedeck gives of its own when it will not serve a request: a status, the
/// `Tapedeck-Error` code a client or a test can branch on, and one line of plain text saying why.
/// Every refusal of both servers is one of these (the unmatched `599` is a ``MatchDiagnosis``,
/// answered as JSON by ``PlaybackAnswers``), so they all look alike on the wire.
package struct Refusal: Sendable {
    /// The status.
    package var status: HTTPResponse.Status
    /// The `Tapedeck-Error` value: `bad-request`, `admin-refused`, `upstream-timeout`...
    package var code: String
    /// Why, for a person: the body, one line.
    package var reason: String
    /// Headers the refusal needs beyond its own (a credentials challenge).
    package var extraHeaders: HTTPFields

    package init(_ status: HTTPResponse.Status, code: String = "bad-request", _ reason: String, extraHeaders: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.reason = reason
        self.extraHeaders = extraHeaders
    }

    /// The body: the reason and a newline.
    var body: ByteBuffer { ByteBuffer(string: reason + "\n") }

    /// The response, for a body of ``body``'s length.
    var response: HTTPResponse {
        var fields = extraHeaders
        fields[.contentType] = "text/plain; charset=utf-8"
        fields[.contentLength] = String(reason.utf8.count + 1)
        fields[.tapedeckError] = code
        return HTTPResponse(status: status, headerFields: fields)
    }
}

extension ResponseSink {
    /// Answers with a refusal.
    package func refuse(_ refusal: Refusal) {
        send(refusal.response, body: refusal.body)
    }
}
