import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCore

/// One request as the server received it, with where it was addressed.
package struct IncomingRequest: Sendable {
    /// The request head as parsed.
    package var head: HTTPRequestHead
    /// The whole body.
    package var body: ByteBuffer
    /// `https://host[:port]` for a request inside an intercepted TLS tunnel, nil otherwise.
    package var tunnelOrigin: String?
    /// When the head arrived; replay delays count from here.
    package var arrival: NIODeadline
    /// Whether the admin API is on (false with `--no-admin`).
    package var adminEnabled = true
    /// The port the request arrived on; set for admin requests, whose `Host` must name it (``AdminGuard``).
    package var serverPort: Int?

    /// The URL as the core sees it: absolute when the sender named the host, origin-form otherwise.
    package var url: String {
        guard let tunnelOrigin, head.uri.hasPrefix("/") else { return head.uri }
        return tunnelOrigin + head.uri
    }

    /// Whether the request is for the admin API (sent straight to the server, not proxied).
    package var isAdmin: Bool { tunnelOrigin == nil && AdminEndpoints.addresses(head.uri, enabled: adminEnabled) }

    /// The core's form of the request, without control headers and hop-by-hop headers.
    package func cassetteRequest() -> CassetteRequest {
        var headers = HeaderList()
        headers.reserveCapacity(head.headers.count)
        for (name, value) in head.headers where !HeaderList.isHopByHop(name) && !ControlHeaders.isControl(name) {
            headers.append(name: name, value: value)
        }
        var bytes = Data(copying: body)
        if let coding = ContentCoding(header: headers["Content-Encoding"]), let decoded = try? coding.decode(bytes) {
            bytes = decoded
        }
        var request = CassetteRequest(method: head.method.rawValue, url: url, headers: headers, body: Body(bytes))
        if GRPCCall.isGRPC(request) { request.body = Body(GRPCCall.decompressed(bytes, encoding: headers["grpc-encoding"]), style: .grpc) }
        return request
    }
}

extension IncomingRequest {
    /// The request with every secret's placeholder replaced by its value: what an upstream receives.
    func revealing(_ secrets: Secrets) -> IncomingRequest {
        var revealed = self
        revealed.head.uri = secrets.revealing(head.uri)
        revealed.head.headers = HTTPHeaders(head.headers.map { ($0.name, secrets.revealing($0.value)) })
        revealed.body = ByteBuffer(bytes: secrets.revealing(Data(body.readableBytesView)))
        return revealed
    }
}
