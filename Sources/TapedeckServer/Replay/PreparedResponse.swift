import Foundation
import NIOCore
import NIOHTTP1
@_spi(Internals) import TapedeckCore
import TapedeckNIO

/// A recorded response ready for the wire, computed once at load: the head with a correct
/// Content-Length, and the body encoded again with gzip or deflate when it was recorded so. For
/// such a body it keeps the recorded interaction, from which ``negotiated(acceptEncoding:)``
/// makes the variant a client that does not accept that coding gets, the first time one asks, and
/// keeps it for the next (at most one for each of identity, gzip and deflate).
///
/// Which coding a client gets is the core's ``ResponseEncoding`` decision, which answers have a
/// body at all ``ResponseBodyRule``'s: a 1xx, 204 or 304 is sent without one, whatever the cassette holds.
///
/// A body kept in a side file is not read here: the response names the ``file``, sent from disk in
/// pieces, and goes as stored (decoded, without `Content-Encoding`, unless kept still encoded)
/// whatever the client accepts, so preparing a cassette of large bodies costs no more than a small one.
///
/// A class, immutable but for its cache of variants: every request served hands the same
/// preparation on through a few steps (negotiation, framing, the sink), and a reference is one
/// count to take and drop where a copy of the struct it was took one per buffer, on values both
/// event loops share.
package final class PreparedResponse: Sendable {
    /// The status and headers, legal for the wire (`HTTPHeaders.legal`: a cassette made in memory
    /// is not checked as a loaded one is). Every variant keeps the recorded `Content-Type`, which
    /// ``isGRPC`` is read from once.
    package let head: HTTPResponseHead
    /// The whole body as sent (empty for a streamed response).
    package let body: ByteBuffer
    /// The pieces of a streamed response, in order; nil for an ordinary body.
    package let chunks: [ByteBuffer]?
    /// The side file whose bytes are the body, sent from disk; ``body`` is empty then.
    package let file: BodyFile?
    /// The trailing headers sent after the body, nil when the recording had none.
    package let trailers: HTTPHeaders?
    /// Whether the answer is a gRPC call's (its content type), found once here rather than per request.
    package let isGRPC: Bool
    /// The variants other clients need, made from the recorded interaction; nil when there is only one.
    private let variants: Variants?

    /// The recorded interaction a response's other variants are made from, and those made so far,
    /// by encoding: a client that sends no `Accept-Encoding` gets the same one every time, not a
    /// new copy of the body (or a new compression of it) per request. Shared by the forms a
    /// request makes of the response (``with(head:trailers:)``).
    private final class Variants: Sendable {
        let recorded: Interaction
        let made = Locked<[ResponseEncoding: PreparedResponse]>([:])

        init(_ recorded: Interaction) {
            self.recorded = recorded
        }
    }

    /// Prepares an interaction's response in its recorded coding.
    package convenience init(_ interaction: Interaction) throws(ContentCodingError) {
        let response = interaction.response
        // A recorded HEAD or 304 answer keeps its Content-Length: it describes a body never sent.
        let keepsLength = interaction.request.method == "HEAD" || response.status == 304
        let allowsBody = ResponseBodyRule.statusAllowsBody(response.status)
        // What a client that sends no Accept-Encoding gets; another variant exists unless it is the recorded coding.
        let plain = ResponseEncoding.negotiate(for: response, acceptEncoding: nil)
        // Made only where it is kept: a side file goes as stored to every client.
        let variants = { plain == .asRecorded ? nil : Variants(interaction) }
        // A gRPC answer's messages that came compressed go compressed again, in the recorded grpc-encoding.
        let isGRPC = GRPCCall.isGRPC(contentType: response.headers["Content-Type"])
        let grpcEncoding = isGRPC ? response.headers["grpc-encoding"] : nil
        if let chunks = interaction.chunks, response.contentCoding == nil {
            self.init(response, keepsLength: keepsLength, isGRPC: isGRPC, body: ByteBuffer(),
                      chunks: allowsBody ? chunks.map { ByteBuffer(bytes: GRPCCall.compressed($0.data, encoding: grpcEncoding)) } : [],
                      variants: variants())
        } else if let file = response.body.file, interaction.chunks == nil {
            var stored = response
            if plain == .identity { stored.headers.remove("Content-Encoding") }
            self.init(stored, keepsLength: keepsLength, isGRPC: isGRPC, body: ByteBuffer(), file: allowsBody ? file : nil,
                      chunks: nil, variants: nil)
        } else {
            let wire = allowsBody ? try response.wireBody(GRPCCall.compressed(interaction.responseBodyData, encoding: grpcEncoding)) : Data()
            self.init(response, keepsLength: keepsLength, isGRPC: isGRPC, body: ByteBuffer(bytes: wire), chunks: nil, variants: variants())
        }
    }

    private convenience init(_ response: CassetteResponse, keepsLength: Bool, isGRPC: Bool, body: ByteBuffer, file: BodyFile? = nil,
                             chunks: [ByteBuffer]?, variants: Variants?) {
        var headers = HTTPHeaders()
        let hopByHop = response.headers.hopByHop
        for field in response.headers where !hopByHop.contains(field.name)
            && (keepsLength || !field.name.caseInsensitiveEquals("Content-Length")) {
            headers.add(name: field.name, value: field.value)
        }
        if chunks == nil, ResponseBodyRule.statusAllowsBody(response.status), !keepsLength {
            headers.add(name: "Content-Length", value: String(file?.size ?? body.readableBytes))
        }
        let trailers = response.trailers.map { HTTPHeaders($0.asTrailers(of: response.headers)) }
        self.init(head: HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers.legal),
                  isGRPC: isGRPC, body: body, file: file, chunks: chunks, trailers: trailers, variants: variants)
    }

    private init(head: HTTPResponseHead, isGRPC: Bool, body: ByteBuffer, file: BodyFile? = nil, chunks: [ByteBuffer]?,
                 trailers: HTTPHeaders?, variants: Variants?) {
        self.head = head
        self.isGRPC = isGRPC
        self.body = body
        self.file = file
        self.chunks = chunks
        self.trailers = trailers
        self.variants = variants
    }

    /// This response with another head or other trailers; its other variants stay.
    private func with(head: HTTPResponseHead? = nil, trailers: HTTPHeaders?) -> PreparedResponse {
        PreparedResponse(head: head ?? self.head, isGRPC: isGRPC, body: body, file: file, chunks: chunks, trailers: trailers,
                         variants: variants)
    }

    /// The response for a client with this `Accept-Encoding` (nil when it sent none): the recorded
    /// coding when it accepts it, otherwise the core's answer for that client
    /// (``Interaction/answer(acceptEncoding:)``: another coding, or the decoded body without `Content-Encoding`).
    package func negotiated(acceptEncoding: String?) -> PreparedResponse {
        guard let variants else { return self }
        let response = variants.recorded.response
        let encoding = ResponseEncoding.negotiate(for: response, acceptEncoding: acceptEncoding)
        guard encoding != ResponseEncoding.negotiate(for: response, acceptEncoding: response.headers["Content-Encoding"]) else { return self }
        if let made = variants.made.withLock({ $0[encoding] }) { return made }
        // Made outside the lock: a compression can take a while, and two clients making the same
        // variant at once both get a right one (the second kept).
        guard let (headers, data) = try? variants.recorded.answer(encoding) else { return self }
        let variant = PreparedResponse(head: HTTPResponseHead(version: .http1_1, status: head.status, headers: HTTPHeaders(headers)),
                                       isGRPC: isGRPC, body: ByteBuffer(bytes: data), chunks: nil, trailers: trailers, variants: nil)
        variants.made.withLock { $0[encoding] = variant }
        return variant
    }

    /// The response as framed for this request, by the one rule of trailers (SPEC 12), which
    /// ``ResponseSink/send(_:body:trailers:)`` follows too: trailers go to a client that takes them
    /// (``IncomingRequest/takesTrailers``: HTTP/2, or HTTP/1.1 with `TE: trailers`), and an answer
    /// that ends with them has no Content-Length, its body ending with the stream (HTTP/2) or in
    /// chunks (HTTP/1.1), as a gRPC server's does. Any other client gets the response without
    /// them, its length kept.
    package func framed(for request: IncomingRequest) -> PreparedResponse {
        // A HEAD answer has no body to follow, and keeps the Content-Length it describes.
        guard trailers != nil, request.head.method != .head else { return self }
        guard request.takesTrailers else { return with(trailers: nil) }
        guard head.headers.contains(name: "Content-Length") else { return self }
        var unmeasured = head
        unmeasured.headers.remove(name: "Content-Length")
        return with(head: unmeasured, trailers: trailers)
    }

    /// A gRPC answer as a call with `deadline` gets it when `delay` would end it later (SPEC 12):
    /// the messages due before the deadline, then at the deadline no more but the status a real
    /// server gives, `DEADLINE_EXCEEDED`. An answer that ends in time is unchanged.
    package func keeping(deadline: Duration, delay: ResponseDelay) -> (PreparedResponse, ResponseDelay) {
        let head = delay.head
        let end = max(delay.total, delay.chunks.last ?? .zero, head)
        guard end > deadline else { return (self, delay) }
        var times: [Duration] = []
        var kept: [ByteBuffer] = []
        for (number, chunk) in (chunks ?? []).enumerated() {
            let at = max(number < delay.chunks.count ? delay.chunks[number] : head, head)
            guard at < deadline else { break }
            kept.append(chunk)
            times.append(at)
        }
        var cutHead = self.head
        cutHead.headers.remove(name: "Content-Length")
        let cut = PreparedResponse(head: cutHead, isGRPC: isGRPC, body: ByteBuffer(), chunks: kept,
                                   trailers: HTTPHeaders(GRPCCall.deadlineExceeded), variants: nil)
        return (cut, ResponseDelay(head: min(head, deadline), total: deadline, chunks: times))
    }

    /// The response for a gRPC client that sent `acceptEncoding` (its `grpc-accept-encoding`):
    /// as recorded when it takes the recorded `grpc-encoding`, otherwise with every message
    /// uncompressed and without the header.
    package func negotiated(grpcAcceptEncoding acceptEncoding: String?) -> PreparedResponse {
        guard let encoding = head.headers.first(name: "grpc-encoding"), !GRPCCall.accepts(acceptEncoding, encoding) else { return self }
        let plain = { (buffer: ByteBuffer) in
            ByteBuffer(bytes: GRPCCall.compressed(GRPCCall.decompressed(Data(buffer.readableBytesView), encoding: encoding), encoding: nil))
        }
        let body = plain(body)
        var uncompressedHead = head
        uncompressedHead.headers.remove(name: "grpc-encoding")
        if uncompressedHead.headers.contains(name: "Content-Length") {
            uncompressedHead.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        }
        return PreparedResponse(head: uncompressedHead, isGRPC: isGRPC, body: body, file: file, chunks: chunks?.map(plain),
                                trailers: trailers, variants: nil)
    }

    /// The same response with one more header (`Tapedeck-Warning: expired`, say).
    package func adding(header name: String, value: String) -> PreparedResponse {
        var added = head
        added.headers.add(name: name, value: value)
        return with(head: added, trailers: trailers)
    }
}

extension CassetteResponse {
    /// The body as it goes on the wire in the recorded coding: encoded again unless kept encoded.
    fileprivate func wireBody(_ plain: Data) throws(ContentCodingError) -> Data {
        guard let contentCoding else { return plain }
        return try contentCoding.encode(plain)
    }
}
