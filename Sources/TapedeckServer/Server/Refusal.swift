import NIOCore
import NIOHTTP1

/// An answer Tapedeck gives of its own when it will not serve a request: a status, the
/// `Tapedeck-Error` code a client or a test can branch on, and one line of plain text saying why.
/// Every refusal of both servers is one of these (the unmatched `599` is a ``MatchDiagnosis``,
/// answered as JSON by ``PlaybackAnswers``), so they all look alike on the wire.
package struct Refusal: Sendable {
    /// The status.
    package var status: HTTPResponseStatus
    /// The `Tapedeck-Error` value: `bad-request`, `admin-refused`, `upstream-timeout`...
    package var code: String
    /// Why, for a person: the body, one line.
    package var reason: String
    /// Headers the refusal needs beyond its own (a credentials challenge).
    package var extraHeaders: [(name: String, value: String)] = []

    package init(_ status: HTTPResponseStatus, code: String = "bad-request", _ reason: String,
                 extraHeaders: [(name: String, value: String)] = []) {
        self.status = status
        self.code = code
        self.reason = reason
        self.extraHeaders = extraHeaders
    }

    /// The body: the reason and a newline.
    var body: ByteBuffer { ByteBuffer(string: reason + "\n") }

    /// The response head, for a body of ``body``'s length.
    var head: HTTPResponseHead {
        var headers = HTTPHeaders(extraHeaders.map { ($0.name, $0.value) })
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(reason.utf8.count + 1))
        headers.add(name: "Tapedeck-Error", value: code)
        return HTTPResponseHead(version: .http1_1, status: status, headers: headers)
    }
}

extension ResponseSink {
    /// Answers with a refusal.
    package func refuse(_ refusal: Refusal) {
        send(status: refusal.status, headers: refusal.head.headers, body: refusal.body)
    }
}
