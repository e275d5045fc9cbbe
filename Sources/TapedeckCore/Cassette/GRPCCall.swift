import Foundation

/// What makes an exchange a gRPC call, and how a recorded call is kept (SPEC section 12): each
/// rule once, for the recording proxy, the replay server and the connector.
package enum GRPCCall {
    /// Whether a Content-Type names gRPC: `application/grpc` or a variant (`+proto`, `+json`).
    package static func isGRPC(contentType: String?) -> Bool {
        guard let type = contentType?.lowercased() else { return false }
        return type == "application/grpc" || type.hasPrefix("application/grpc+") || type.hasPrefix("application/grpc;")
    }

    /// Whether a request is a gRPC call.
    package static func isGRPC(_ request: CassetteRequest) -> Bool {
        isGRPC(contentType: request.headers["Content-Type"])
    }

    /// A trailers-only answer (an error with no message: one HEADERS frame holding the status)
    /// split into the head it is replayed with, its Content-Type alone, and its trailers (the
    /// status and every other field but the length, all trailing metadata), as a client reads it. Nil when the
    /// headers are not a gRPC trailers-only answer's (no `grpc-status` in them).
    package static func splitTrailersOnly(_ headers: HeaderList) -> (head: HeaderList, trailers: HeaderList)? {
        guard isGRPC(contentType: headers["Content-Type"]), headers.contains("grpc-status") else { return nil }
        var head = HeaderList()
        var trailers = HeaderList()
        for field in headers {
            if field.name.caseInsensitiveEquals("Content-Type") {
                head.append(name: field.name, value: field.value)
            } else if !field.name.caseInsensitiveEquals("Content-Length") {
                trailers.append(name: field.name, value: field.value)
            }
        }
        return (head, trailers)
    }

    /// The interaction with its gRPC bodies kept as message lists (`{"grpc": [...]}`).
    package static func keepingMessages(_ interaction: Interaction) -> Interaction {
        var interaction = interaction
        if isGRPC(interaction.request) { interaction.request.body.style = .grpc }
        if isGRPC(contentType: interaction.response.headers["Content-Type"]) { interaction.response.body.style = .grpc }
        return interaction
    }
}
