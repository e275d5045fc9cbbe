import HTTPTypes

extension HTTPField.Name {
    /// `grpc-timeout`: the deadline a gRPC client gives its call.
    package static let grpcTimeout = HTTPField.Name("grpc-timeout")!
    /// `grpc-encoding`: how a gRPC message is compressed.
    package static let grpcEncoding = HTTPField.Name("grpc-encoding")!
    /// `grpc-accept-encoding`: the message codings a gRPC client takes.
    package static let grpcAcceptEncoding = HTTPField.Name("grpc-accept-encoding")!
}
