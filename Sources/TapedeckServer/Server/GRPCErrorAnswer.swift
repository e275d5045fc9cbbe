import NIOHTTP1
import TapedeckCore

/// How a gRPC client hears of an error of Tapedeck's own (SPEC section 12): HTTP status 200 with no
/// message, and trailers with the status and the reason. Nothing matched: `grpc-status: 12`
/// (UNIMPLEMENTED) and a `grpc-message` naming the nearest recording and its first difference.
/// Messages whose framing does not hold: `grpc-status: 13` (INTERNAL), as a gRPC server answers.
/// Never an HTTP 599 or 400, which a gRPC client reports as a transport failure.
enum GRPCErrorAnswer {
    /// The status line and headers of the answer, without a body.
    static let headers = HTTPHeaders([("Content-Type", "application/grpc"), ("Tapedeck-Error", "no-match")])
    /// The same for a request whose messages do not parse.
    static let malformedHeaders = HTTPHeaders([("Content-Type", "application/grpc"), ("Tapedeck-Error", "malformed-grpc")])

    /// The trailers: status 12 and the reason, percent-encoded as gRPC requires.
    static func trailers(for diagnosis: MatchDiagnosis) -> HTTPHeaders {
        HTTPHeaders([("grpc-status", "12"), ("grpc-message", percentEncoded(message(for: diagnosis)))])
    }

    /// The trailers for a request whose messages' framing does not hold: status 13 and what is wrong.
    static func malformedTrailers(_ problem: String) -> HTTPHeaders {
        HTTPHeaders([("grpc-status", "13"), ("grpc-message", percentEncoded("the request's messages do not parse: \(problem)"))])
    }

    /// `no recording matched /demo.Greeter/SayHello; nearest #3: body differs ...`.
    static func message(for diagnosis: MatchDiagnosis) -> String {
        let path = RequestTarget(diagnosis.request.url).path
        var text: String
        switch diagnosis.reason {
        case .noMatch: text = "no recording matched \(path)"
        case .exhausted: text = "every recording of \(path) was already played"
        case .expired: text = "every recording of \(path) has expired"
        }
        if let nearest = diagnosis.nearest.first {
            let difference = nearest.differences.first ?? nearest.failedRules.first ?? "differs"
            text += "; nearest #\(nearest.index) in \(nearest.cassette): \(difference)"
        }
        return text
    }

    private static let hexDigits = Array("0123456789ABCDEF")

    /// gRPC's percent-encoding of `grpc-message`: every byte outside printable ASCII, and `%`, as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "%") {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%"
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }
}
