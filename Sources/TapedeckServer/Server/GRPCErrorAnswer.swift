import HTTPTypes
import TapedeckCore

/// How a gRPC client hears of an error of Tapedeck's own (SPEC section 12): HTTP status 200 with no
/// message, and trailers with the status and the reason. Nothing matched: `grpc-status: 12`
/// (UNIMPLEMENTED) and a `grpc-message` naming the nearest recording and its first difference.
/// Messages whose framing does not hold: `grpc-status: 13` (INTERNAL), as a gRPC server answers.
/// A request over `--max-body`: `grpc-status: 8` (RESOURCE_EXHAUSTED), as a gRPC server answers a
/// message over its size limit.
/// Never an HTTP 599 or 400, which a gRPC client reports as a transport failure.
enum GRPCErrorAnswer {
    /// The answer when nothing matched: the status line and headers, without a body.
    static let noMatch = HTTPResponse(status: .ok, headerFields: [.contentType: "application/grpc", .tapedeckError: "no-match"])
    /// The same for a request whose messages do not parse.
    static let malformed = HTTPResponse(status: .ok, headerFields: [.contentType: "application/grpc", .tapedeckError: "malformed-grpc"])
    /// The same for a call whose request grew past `--max-body`.
    static let tooLarge = HTTPResponse(status: .ok, headerFields: [.contentType: "application/grpc", .tapedeckError: "too-large"])

    /// The trailers: status 12 and the reason, percent-encoded as gRPC requires.
    static func trailers(for diagnosis: MatchDiagnosis) -> HTTPFields {
        [grpcStatus: "12", grpcMessage: GRPCStatusText.percentEncoded(GRPCStatusText.miss(diagnosis))]
    }

    /// The trailers for a request whose messages' framing does not hold: status 13 and what is wrong.
    static func malformedTrailers(_ problem: String) -> HTTPFields {
        [grpcStatus: "13", grpcMessage: GRPCStatusText.percentEncoded("the request's messages do not parse: \(problem)")]
    }

    /// The trailers for a call whose request grew past the limit: status 8 and why.
    static func tooLargeTrailers(_ reason: String) -> HTTPFields {
        [grpcStatus: "8", grpcMessage: GRPCStatusText.percentEncoded(reason)]
    }

    /// The trailers for a replayed chat whose client left its recording: status 12 and where.
    static func departure(_ reason: String, path: String) -> HTTPFields {
        [grpcStatus: "12", grpcMessage: GRPCStatusText.percentEncoded(GRPCStatusText.departure(path: path, reason: reason))]
    }

    private static let grpcStatus = HTTPField.Name("grpc-status")!
    private static let grpcMessage = HTTPField.Name("grpc-message")!
}
