import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwiftASN1
@_spi(Internals) import TapedeckCore
import TapedeckServer
import X509

/// A real upstream service the recording tests start themselves, over plain HTTP or HTTPS
/// with a test certificate made here with swift-certificates. It answers the request kinds of
/// the example cassette and a few fault cases.
final class TestUpstream: Sendable {
    /// The port it listens on.
    let port: Int
    /// `http` or `https`.
    let scheme: String
    /// How many requests it answered.
    let requests = Locked(0)
    /// How many `/stall-body` answers were cut off by the other side closing the connection.
    let abandonedStalls = Locked(0)
    /// The `/held` requests waiting for ``releaseHeld()``: each answers when called.
    let held = Locked<[@Sendable () -> Void]>([])
    /// How many connections to it are open.
    let openConnections = Locked(0)
    /// How many connections it accepted in all.
    let acceptedConnections = Locked(0)
    private let channel: any Channel

    /// The base URL with 127.0.0.1.
    var base: String { "\(scheme)://127.0.0.1:\(port)" }
    /// The base URL as a reverse proxy's target.
    var target: ReverseProxyTarget {
        // `base` is always http://127.0.0.1:PORT, which reads as a target.
        try! ReverseProxyTarget(base)
    }

    /// Starts an HTTPS upstream with a certificate of its own (for localhost and 127.0.0.1), and writes its CA's
    /// certificate to `upstream-ca.pem` in `directory` (for `--upstream-ca` or curl's `--cacert`).
    static func startSecure(writingAuthorityTo directory: URL) async throws -> (upstream: TestUpstream, authority: URL) {
        let certificate = try TestCertificate.make()
        let authority = directory.appending(path: "upstream-ca.pem")
        try certificate.writeAuthority(to: authority)
        return (try await start(certificate: certificate), authority)
    }

    /// Starts the upstream; pass a certificate to serve HTTPS.
    static func start(certificate: TestCertificate? = nil) async throws -> TestUpstream {
        let tls = try certificate.map { try NIOSSLContext(configuration: $0.serverConfiguration()) }
        let box = CounterBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(UpstreamHandler(counter: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let upstream = TestUpstream(port: channel.localAddress!.port!, scheme: tls == nil ? "http" : "https", channel: channel)
        box.upstream = upstream
        return upstream
    }

    private init(port: Int, scheme: String, channel: any Channel) {
        self.port = port
        self.scheme = scheme
        self.channel = channel
    }

    /// Answers every `/held` request waiting.
    func releaseHeld() {
        for answer in held.withLock({ state in defer { state = [] }; return state }) { answer() }
    }

    /// Stops listening.
    func stop() async throws {
        try await channel.close()
    }

    /// The live credential in `/large-json`'s body.
    static let largeJSONToken = "live-token-4d9f2a7c"

    /// The download body: deterministic, not UTF-8, several megabytes.
    static func downloadBody(size: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: size)
        for index in 0..<size { bytes[index] = UInt8(truncatingIfNeeded: (index &* 2_654_435_761) >> 13) }
        return Data(bytes)
    }

    /// The JSON answer of /gzip-json before compression.
    static let gzipJSON = #"{"items":[{"id":1,"name":"alpha"},{"id":2,"name":"beta"}],"compressed":true}"#
}

/// Lets the handler count requests on the upstream it belongs to.
final class CounterBox: @unchecked Sendable {
    weak var upstream: TestUpstream?
    private let lock = NSLock()
    private var count = 0
    func next() -> Int {
        lock.lock(); defer { lock.unlock() }
        count += 1
        upstream?.requests.withLock { $0 += 1 }
        return count
    }
    func stallAbandoned() {
        upstream?.abandonedStalls.withLock { $0 += 1 }
    }
    func connectionOpened() {
        upstream?.openConnections.withLock { $0 += 1 }
        upstream?.acceptedConnections.withLock { $0 += 1 }
    }
    func connectionClosed() {
        upstream?.openConnections.withLock { $0 -= 1 }
    }
}

/// Answers the upstream routes.
private final class UpstreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let counter: CounterBox
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// Whether a `/stall-body` answer is half sent on this connection.
    private var stalling = false
    /// How many requests this connection answered.
    private var answeredHere = 0

    init(counter: CounterBox) { self.counter = counter }

    func channelActive(context: ChannelHandlerContext) {
        counter.connectionOpened()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        counter.connectionClosed()
        if stalling { counter.stallAbandoned() }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head; body.clear()
        case .body(var chunk): body.writeBuffer(&chunk)
        case .end: if let head { route(head, context: context) }
        }
    }

    private func send(_ context: ChannelHandlerContext, status: HTTPResponseStatus = .ok, headers: [(String, String)] = [],
                      body: Data = Data()) {
        var fields = HTTPHeaders(headers)
        fields.replaceOrAdd(name: "Content-Length", value: String(body.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: fields))), promise: nil)
        if !body.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func route(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let number = counter.next()
        defer { answeredHere += 1 }
        let parts = head.uri.split(separator: "?", maxSplits: 1)
        let path = String(parts.first ?? "/")
        let query = parts.count > 1 ? String(parts[1]) : ""
        let pairs = Dictionary(query.split(separator: "&").map { pair -> (String, String) in
            let kv = pair.split(separator: "=", maxSplits: 1)
            return (String(kv[0]), kv.count > 1 ? String(kv[1]) : "")
        }, uniquingKeysWith: { first, _ in first })
        let requestBody = Data(body.readableBytesView)
        let json = [("Content-Type", "application/json")]
        switch (head.method, path) {
        case (.GET, "/one-per-connection") where answeredHere > 0:
            // Like a server whose keep-alive timeout ends just as the next request arrives.
            context.close(promise: nil)
            return
        case (.GET, "/held"):
            // Answered when the test says so (``TestUpstream/releaseHeld()``).
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            counter.upstream?.held.withLock {
                $0.append {
                    eventLoop.execute {
                        let (handler, context) = bound.value
                        handler.send(context, headers: [("Content-Type", "text/plain")], body: Data("held answer".utf8))
                    }
                }
            }
        case (.GET, "/one-per-connection"):
            send(context, headers: [("Content-Type", "text/plain")], body: Data("served \(pairs["n"] ?? "")\n".utf8))
        case (.GET, "/plaintext"), (.HEAD, "/plaintext"):
            send(context, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data("Hello \(pairs["name"] ?? "nobody")!".utf8))
        case (.POST, "/postName"):
            let form = String(decoding: requestBody, as: UTF8.self)
            send(context, headers: json, body: Data(#"{"form":"\#(form)","greeting":"Hi"}"#.utf8))
        case (.POST, "/postBodyData"):
            send(context, headers: json, body: Data(#"{"received":\#(String(decoding: requestBody, as: UTF8.self)),"id":42}"#.utf8))
        case (.POST, "/upload"):
            let type = head.headers.first(name: "Content-Type") ?? ""
            let files = String(decoding: requestBody, as: UTF8.self).components(separatedBy: "filename=").count - 1
            send(context, headers: json, body: Data(#"{"multipart":\#(type.hasPrefix("multipart/form-data")),"files":\#(files),"bytes":\#(requestBody.count)}"#.utf8))
        case (.GET, "/download"):
            send(context, headers: [("Content-Type", "application/octet-stream")],
                 body: TestUpstream.downloadBody(size: Int(pairs["size"] ?? "") ?? 3_000_000))
        case (.GET, "/large-json"):
            // Past the side-file threshold, with a credential the default rules redact.
            let padding = String(repeating: "p", count: 2_000_000)
            send(context, headers: json, body: Data(#"{"access_token":"\#(TestUpstream.largeJSONToken)","padding":"\#(padding)"}"#.utf8))
        case (.GET, "/gzip-json"):
            let compressed = try! ContentCoding.gzip.encode(Data(TestUpstream.gzipJSON.utf8))
            send(context, headers: json + [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")], body: compressed)
        case (.GET, "/deflate-text"):
            let compressed = try! ContentCoding.deflate.encode(Data("deflated words".utf8))
            send(context, headers: [("Content-Type", "text/plain"), ("Content-Encoding", "deflate")], body: compressed)
        case (.GET, "/trailers"):
            // A chunked answer with trailing headers, as a gRPC server ends a call; the body says whether TE: trailers came.
            // With a trailer the head's Connection names, which concerns only this connection. (A Content-Length
            // trailer SwiftNIO's parser refuses, as the upstream's error, so the proxy never sees one.)
            let asked = head.headers[canonicalForm: "TE"].contains { $0.lowercased() == "trailers" }
            let fields = [("Content-Type", "text/plain"), ("Transfer-Encoding", "chunked"), ("Connection", "X-Hop")]
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: HTTPHeaders(fields)))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: asked ? "te=trailers" : "te=none")))), promise: nil)
            let trailers = [("Grpc-Status", "0"), ("X-Checksum", "abc"), ("X-Hop", "1")]
            context.writeAndFlush(wrapOutboundOut(.end(HTTPHeaders(trailers))), promise: nil)
        case (.GET, "/events"):
            streamEvents(context)
        case (.GET, "/redirect"):
            send(context, status: .found, headers: [("Location", "/plaintext?name=Redirected")])
        case (.GET, "/counter"):
            send(context, headers: [("Content-Type", "text/plain")], body: Data("answer \(number) for \(pairs["i"] ?? "-")".utf8))
        case (.GET, "/stall-body"):
            var fields = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "20")])
            fields.add(name: "X-Stall", value: "1")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: fields))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "first half")))), promise: nil)
            // The rest never comes: only the other side closing the connection ends this answer.
            stalling = true
        case (.POST, "/login"):
            send(context, headers: json + [("Set-Cookie", "session=abc123; HttpOnly")],
                 body: Data(#"{"access_token":"live-secret","refresh_token":"r-secret","ok":true}"#.utf8))
        default:
            send(context, status: .notFound, headers: json, body: Data(#"{"error":"no route \#(path)"}"#.utf8))
        }
    }

    private func streamEvents(_ context: ChannelHandlerContext) {
        let head = HTTPResponseHead(version: .http1_1, status: .ok,
                                    headers: HTTPHeaders([("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]))
        context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        // 200 ms apart, so the gaps a recording measures (at least 40 ms each) survive a loaded
        // machine (a thread sanitizer run on 2 cores delayed one event by more than 20 ms).
        for (offset, text) in [(0, "data: one\n\n"), (200, "data: two\n\n"), (400, "data: three\n\n")] {
            context.eventLoop.scheduleTask(in: .milliseconds(Int64(offset))) {
                let (h, c) = bound.value
                c.writeAndFlush(h.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
            }
        }
        context.eventLoop.scheduleTask(in: .milliseconds(420)) {
            let (h, c) = bound.value
            c.writeAndFlush(h.wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

/// A test CA and a leaf for 127.0.0.1 and localhost, made with swift-certificates.
struct TestCertificate {
    let authorityPEM: String
    let leafPEM: String
    let leafKeyPEM: String

    /// Makes a fresh pair.
    static func make() throws -> TestCertificate {
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Tapedeck test upstream CA") }
        let now = Date()
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86400),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: .init(caKey.publicKey))
            },
            issuerPrivateKey: .init(caKey))
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86400),
            issuer: caName, subject: try DistinguishedName { CommonName("localhost") }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
                AuthorityKeyIdentifier(keyIdentifier: try ca.extensions.subjectKeyIdentifier?.keyIdentifier)
            },
            issuerPrivateKey: .init(caKey))
        return TestCertificate(authorityPEM: try ca.serializeAsPEM().pemString, leafPEM: try leaf.serializeAsPEM().pemString,
                               leafKeyPEM: leafKey.pemRepresentation)
    }

    /// The server TLS configuration of the upstream.
    func serverConfiguration() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(leafPEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(leafKeyPEM.utf8), format: .pem)))
    }

    /// Writes the CA certificate to a file, for --upstream-ca or curl --cacert.
    func writeAuthority(to url: URL) throws { try Data(authorityPEM.utf8).write(to: url) }
}
