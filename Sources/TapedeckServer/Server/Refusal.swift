import Foundation
import HTTPTypes
import NIOCore
import TapedeckCore

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
    /// A JSON body of RFC 9457 problem details in place of the one line of text.
    private var problem: Data?

    package init(_ status: HTTPResponse.Status, code: String = "bad-request", _ reason: String, extraHeaders: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.reason = reason
        self.extraHeaders = extraHeaders
    }

    /// The body: the reason and a newline, or the problem details.
    var body: ByteBuffer { problem.map { ByteBuffer(bytes: $0) } ?? ByteBuffer(string: reason + "\n") }

    /// The response, for a body of ``body``'s length.
    var response: HTTPResponse {
        var fields = extraHeaders
        fields[.contentType] = problem == nil ? "text/plain; charset=utf-8" : "application/problem+json"
        fields[.contentLength] = String(problem?.count ?? reason.utf8.count + 1)
        fields[.tapedeckError] = code
        return HTTPResponse(status: status, headerFields: fields)
    }

    /// A request that breaks the API document, refused under `--openapi-strict`: 400 with RFC 9457
    /// problem details, each violation a line of `violations`.
    package static func contractViolated(_ violations: [ContractViolation], request: CassetteRequest) -> Refusal {
        let lines = violations.map(\.line)
        var refusal = Refusal(.badRequest, code: "openapi-violation",
                              "\(request.method) \(request.url) breaks the API document: \(lines.joined(separator: "; "))")
        let details: JSONValue = .object([
            "type": .string("tag:tapedeck,2026:openapi-violation"),
            "title": .string("The request breaks the API document"),
            "status": .integer(400),
            "detail": .string(refusal.reason),
            "violations": .array(lines.map(JSONValue.string)),
        ])
        refusal.problem = details.compactData
        return refusal
    }
}

extension ResponseSink {
    /// Answers with a refusal.
    package func refuse(_ refusal: Refusal) {
        send(refusal.response, body: refusal.body)
    }
}
