import HTTPTypes
import NIOHTTP1

// The one translation between swift-http-types, the exchange's values, and SwiftNIO's HTTP/1
// types, the wire's: the servers and TapedeckAsyncHTTPClient both take it.

extension HTTPFields {
    /// SwiftNIO's headers as swift-http-types fields, in order; a name that is not a valid field name is left out.
    package init(_ headers: HTTPHeaders) {
        self.init()
        reserveCapacity(headers.count)
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            append(HTTPField(name: fieldName, value: value))
        }
    }
}

extension HTTPHeaders {
    /// swift-http-types fields as SwiftNIO's headers, in order, each name as it was spelled.
    package init(_ fields: HTTPFields) {
        self.init()
        reserveCapacity(fields.count)
        for field in fields { add(name: field.name.rawName, value: field.value) }
    }
}

extension HTTPHeaders {
    /// These headers as they may go on the wire, by swift-http-types' rule for fields: a name
    /// that is not a token is left out, and a CR, LF or NUL in a value becomes a space, so no
    /// header can split an answer or add one. Headers already legal (every header SwiftNIO's
    /// parser read) come back as they are, after one look at each.
    package var legal: HTTPHeaders {
        if allSatisfy({ HTTPField.Name($0.name) != nil && HTTPField.isValidValue($0.value) }) { return self }
        return HTTPHeaders(HTTPFields(self))
    }
}

extension HTTPResponseStatus {
    /// A swift-http-types status, its reason phrase kept (the standard one when it has none).
    package init(_ status: HTTPResponse.Status) {
        if status.reasonPhrase.isEmpty {
            self.init(statusCode: status.code)
        } else {
            self.init(statusCode: status.code, reasonPhrase: status.reasonPhrase)
        }
    }
}

extension HTTPResponseStatus {
    /// This status as it may go on the wire: a reason phrase legal by swift-http-types' rule
    /// (a character it does not allow becomes a space), a code of three digits at most.
    package var legal: HTTPResponseStatus {
        HTTPResponseStatus(HTTPResponse.Status(self))
    }
}

extension HTTPResponse.Status {
    /// A SwiftNIO status, its reason phrase kept. A code past 999, which swift-http-types cannot
    /// hold (a status code has three digits; only a broken upstream sends a longer one), becomes
    /// 502 Bad Gateway, as a proxy answers an invalid response.
    package init(_ status: HTTPResponseStatus) {
        guard status.code <= 999 else {
            self = .badGateway
            return
        }
        self.init(code: Int(status.code), reasonPhrase: status.reasonPhrase)
    }
}

extension HTTPResponseHead {
    /// The HTTP/1.1 head of a swift-http-types response (an HTTP/2 stream's codec takes it too).
    package init(_ response: HTTPResponse) {
        self.init(version: .http1_1, status: HTTPResponseStatus(response.status), headers: HTTPHeaders(response.headerFields))
    }
}
