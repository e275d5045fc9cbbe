import Foundation
import GRPCCore
import Tapedeck

/// gRPC metadata and the HTTP headers a cassette keeps it as (SPEC section 12): binary values
/// (`-bin` keys) in base64, as on the wire. One rule for both transports, both ways.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension HeaderList {
    /// Appends metadata, leaving out what a transport passes on of HTTP/2's own (`:status`) and
    /// the names already here.
    mutating func append(_ metadata: Metadata) {
        let written = Set(map { $0.name.lowercased() })
        for (key, value) in metadata where !key.hasPrefix(":") && !written.contains(key.lowercased()) {
            switch value {
            case .string(let text): append(name: key, value: text)
            case .binary(let bytes): append(name: key, value: Data(bytes).base64EncodedString())
            }
        }
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension Metadata {
    /// Headers as metadata, without those gRPC and HTTP keep for themselves.
    init(headers: HeaderList) {
        self.init()
        for field in headers {
            let name = field.name.lowercased()
            guard !Self.reserved.contains(name) else { continue }
            if name.hasSuffix("-bin"), let bytes = Data(base64Encoded: field.value) {
                addBinary([UInt8](bytes), forKey: name)
            } else {
                addString(field.value, forKey: name)
            }
        }
    }

    private static let reserved: Set<String> = [
        "content-type", "content-length", "te", "grpc-status", "grpc-message", "grpc-encoding", "grpc-accept-encoding",
        "grpc-status-details-bin", "tapedeck-error",
    ]
}
