import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
@_spi(Internals) import TapedeckCore

/// One request as the server received it, with where it was addressed: the value the front door,
/// the admin API and the modes work on, the same whichever protocol carried it (HTTP/1.1, an
/// HTTP/2 stream, a request inside an intercepted tunnel).
package struct IncomingRequest: Sendable {
    /// The request as swift-http-types holds it: its header fields are the fields as received, in
    /// order and with their spelling, but for `Host`, which is its `authority` (as HTTP/2's
    /// `:authority`); an absolute-form target (a forward-proxy request) gives the scheme and authority.
    package var head: HTTPRequest
    /// The protocol version the request came in with (an HTTP/2 stream says 2.0): whether the
    /// upstream leg speaks HTTP/2, and how trailers are framed.
    package var version: HTTPVersion
    /// The whole body; empty while ``bodyStream`` or ``arrivingBody`` brings it, or when it is in ``spooledBody``.
    package var body: ByteBuffer
    /// The whole body when it was too large to hold in memory: in a file, named by its SHA-256.
    package var spooledBody: SpooledBody?
    /// The body still arriving into a file, for a large upload handed on before it ended.
    package var arrivingBody: ArrivingUpload?
    /// The body still arriving, for a request handed on before it ended (a gRPC call on an HTTP/2
    /// stream); nil for a whole request.
    package var bodyStream: RequestBodyStream?
    /// `https://host[:port]` for a request inside an intercepted TLS tunnel, nil otherwise.
    package var tunnelOrigin: String?
    /// When the head arrived; replay delays count from here.
    package var arrival: NIODeadline
    /// Whether the admin API is on (false with `--no-admin`).
    package var adminEnabled = true
    /// The port the request arrived on; set for admin requests, whose `Host` must name it (``AdminGuard``).
    package var serverPort: Int?

    /// - Parameters:
    ///   - head: the request.
    ///   - version: the protocol version it came in with.
    package init(head: HTTPRequest, version: HTTPVersion = .http1_1, body: ByteBuffer = ByteBuffer(),
                 tunnelOrigin: String? = nil, arrival: NIODeadline = .now()) {
        self.head = head
        self.version = version
        self.body = body
        self.tunnelOrigin = tunnelOrigin
        self.arrival = arrival
    }

    /// The size of the whole body, in memory or in its file.
    package var bodySize: Int { spooledBody?.file.size ?? body.readableBytes }

    /// The request target as the client sent it: the path and query, or an absolute URL.
    package var target: String {
        guard let scheme = head.scheme, let authority = head.authority else { return head.path ?? "" }
        return "\(scheme)://\(authority)\(head.path ?? "")"
    }

    /// The URL as the core sees it: absolute when the sender named the host, origin-form otherwise.
    package var url: String {
        let target = target
        guard let tunnelOrigin, target.hasPrefix("/") else { return target }
        return tunnelOrigin + target
    }

    /// The path without its query.
    package var path: Substring {
        let path = head.path ?? ""
        return path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    /// Whether the request is for the admin API (sent straight to the server, not proxied).
    package var isAdmin: Bool { tunnelOrigin == nil && AdminEndpoints.addresses(target, enabled: adminEnabled) }

    /// Whether the client takes trailing headers: an HTTP/2 stream always, HTTP/1.1 when it sent
    /// `TE: trailers` (they then go as chunked trailers).
    package var takesTrailers: Bool {
        // HTTP/1.0 has no chunked framing, which trailers need.
        version.major >= 2 || (version.minor >= 1 && head.headerFields[elementsOf: .te].contains { $0.caseInsensitiveEquals("trailers") })
    }

    /// The `Host` header the request stands for: its authority, spelled as its protocol spells names.
    package var hostHeader: HeaderField? {
        head.authority.map { HeaderField(name: version.major >= 2 ? "host" : "Host", value: $0) }
    }

    /// The core's form of the request, without control headers and hop-by-hop headers; `Host`
    /// (the authority) first.
    ///
    /// - Parameters:
    ///   - url: the URL it keeps, when not ``url`` (a reverse proxy keeps the upstream's).
    ///   - host: the `Host` value it keeps when the request has one, when not the request's own.
    package func cassetteRequest(url: String? = nil, host: String? = nil) -> CassetteRequest {
        var headers = HeaderList()
        headers.reserveCapacity(head.headerFields.count + 1)
        if let hostHeader { headers.append(name: hostHeader.name, value: host ?? hostHeader.value) }
        let hopByHop = HopByHopFields(connection: head.headerFields[values: .connection])
        for field in head.headerFields where !hopByHop.contains(field.name.rawName) && !ControlHeaders.isControl(field.name.rawName) {
            headers.append(name: field.name.rawName, value: field.value)
        }
        let body = spooledBody.map { Self.cassetteBody($0, headers: headers) } ?? Self.cassetteBody(Data(copying: body), headers: headers)
        return CassetteRequest(method: head.method.rawValue, url: url ?? self.url, headers: headers, body: body)
    }

    /// A spooled body as the cassette keeps it: in its file, as received. Decoding it from its
    /// `Content-Encoding` would mean a second file per request; it is marked ``Body/isEncoded``
    /// instead, and recorded the same way, so replay compares like with like.
    static func cassetteBody(_ spooled: SpooledBody, headers: HeaderList) -> Body {
        var body = Body(file: spooled.file)
        body.isEncoded = ContentCoding(header: headers["Content-Encoding"]) != nil
        return body
    }

    /// The whole body's bytes, read from its file when it was spooled: for what needs them all at
    /// once (the admin API's documents), never for a body that may be large.
    package var wholeBody: Data {
        spooledBody.map { (try? $0.file.contents()) ?? Data() } ?? Data(body.readableBytesView)
    }

    /// A request body as the cassette keeps it: decoded from its `Content-Encoding`, and a gRPC
    /// call's messages decompressed.
    static func cassetteBody(_ received: Data, headers: HeaderList) -> Body {
        var bytes = received
        if let coding = ContentCoding(header: headers["Content-Encoding"]), let decoded = try? coding.decode(bytes) {
            bytes = decoded
        }
        guard GRPCCall.isGRPC(contentType: headers["Content-Type"]) else { return Body(bytes) }
        return Body(GRPCCall.decompressed(bytes, encoding: headers["grpc-encoding"]), style: .grpc)
    }
}

extension IncomingRequest {
    /// Why a request head cannot be taken: a method or header name swift-http-types refuses.
    package struct Malformed: Error, CustomStringConvertible {
        /// What was refused.
        package var description: String
    }

    /// The request as an HTTP/1 head gave it (an HTTP/2 stream reaches the server through SwiftNIO's
    /// translation to HTTP/1 parts): the one place where SwiftNIO's head becomes the exchange's value.
    /// An HTTP/1.1 request with no `Host`, or any with more than one, is malformed (RFC 9112
    /// section 3.2: a real server answers both 400, so a client that works here works there); a
    /// proxy's request names its host in the target and may leave `Host` out. An HTTP/2 stream
    /// carries no `Transfer-Encoding` (RFC 9113 section 8.2.2): the one the translation adds to a
    /// body without a length is left out, so both protocols give the same value.
    package init(_ wire: HTTPRequestHead, body: ByteBuffer, tunnelOrigin: String?, arrival: NIODeadline) throws(Malformed) {
        guard let method = HTTPRequest.Method(wire.method.rawValue) else {
            throw Malformed(description: "the method \(wire.method.rawValue) is not a token")
        }
        var fields = HTTPFields()
        fields.reserveCapacity(wire.headers.count)
        var host: String?
        let isHTTP2 = wire.version.major >= 2
        for (name, value) in wire.headers {
            if isHTTP2, name.caseInsensitiveEquals("Transfer-Encoding") { continue }
            if name.caseInsensitiveEquals("Host") {
                guard host == nil else { throw Malformed(description: "more than one Host header") }
                host = value
                continue
            }
            guard let fieldName = HTTPField.Name(name) else { throw Malformed(description: "the header name \"\(name)\" is not a token") }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let target = RequestTargetForm(wire.uri)
        if host == nil, target.authority == nil, wire.version == .http1_1 {
            throw Malformed(description: "an HTTP/1.1 request needs a Host header")
        }
        // Set here rather than through init(head:…), which made the request twice and copied it (per request).
        head = HTTPRequest(method: method, scheme: target.scheme, authority: target.authority ?? host, path: target.path,
                           headerFields: fields)
        version = wire.version
        self.body = body
        self.tunnelOrigin = tunnelOrigin
        self.arrival = arrival
    }

    /// The request with `body`, the whole of what its ``bodyStream`` brought.
    func whole(_ body: ByteBuffer) -> IncomingRequest {
        var whole = self
        whole.body = body
        whole.bodyStream = nil
        return whole
    }

    /// The request with `body`, the whole of what its ``arrivingBody`` brought.
    func whole(_ body: SpooledBody) -> IncomingRequest {
        var whole = self
        whole.spooledBody = body
        whole.arrivingBody = nil
        return whole
    }

    /// The request with every secret's placeholder replaced by its value: what an upstream receives.
    func revealing(_ secrets: Secrets) -> IncomingRequest {
        var revealed = self
        revealed.head.path = head.path.map(secrets.revealing)
        revealed.head.authority = head.authority.map(secrets.revealing)
        revealed.head.headerFields = HTTPFields(head.headerFields.map { HTTPField(name: $0.name, value: secrets.revealing($0.value)) })
        let isGRPC = GRPCCall.isGRPC(contentType: head.headerFields[.contentType])
        let encoding = head.headerFields[.grpcEncoding]
        revealed.body = ByteBuffer(bytes: secrets.revealing(Data(body.readableBytesView), asGRPCMessages: isGRPC, encoding: encoding))
        // A call forwarded as it arrives (only gRPC calls are) is revealed message by message.
        revealed.bodyStream = bodyStream.map { isGRPC ? $0.revealingMessages(secrets, encoding: encoding) : $0 }
        return revealed
    }
}

/// An HTTP/1 request target split as swift-http-types keeps it: an absolute-form target
/// (`http://host:port/path?query`) gives its scheme, authority and path; any other form is the
/// path as sent. Nothing is normalised, so ``IncomingRequest/target`` gives back the same text.
struct RequestTargetForm: Equatable {
    var scheme: String?
    var authority: String?
    var path: String

    init(_ target: String) {
        guard !target.hasPrefix("/"), let separator = target.range(of: "://") else {
            path = target
            return
        }
        let rest = target[separator.upperBound...]
        let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        scheme = String(target[..<separator.lowerBound])
        authority = String(rest[..<pathStart])
        path = String(rest[pathStart...])
    }
}
