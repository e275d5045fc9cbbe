import HTTPTypes

extension HTTPField.Name {
    /// `grpc-timeout`: the deadline a gRPC client gives its call.
    package static let grpcTimeout = HTTPField.Name("grpc-timeout")!
    /// `grpc-encoding`: how a gRPC message is compressed.
    package static let grpcEncoding = HTTPField.Name("grpc-encoding")!
    /// `grpc-accept-encoding`: the message codings a gRPC client takes.
    package static let grpcAcceptEncoding = HTTPField.Name("grpc-accept-encoding")!
    /// `Tapedeck-Error`: why Tapedeck answered a request itself (`no-match`, `bad-request`...).
    package static let tapedeckError = HTTPField.Name("Tapedeck-Error")!
    /// `Tapedeck-Warning`: `expired` on an answer past its cassette's expiry age.
    package static let tapedeckWarning = HTTPField.Name("Tapedeck-Warning")!
}
