import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import TapedeckCore

/// The bytes of a generated large body: 64 KiB pieces of fixed pseudo-random bytes, each starting
/// with its own index, so any piece out of place or any byte changed shows. Generated, never stored.
struct LargeBodyPattern: Sendable {
    /// The size of one piece.
    static let pieceSize = 64 * 1024
    private static let base: [UInt8] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<pieceSize).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }()

    /// The whole body's size, a multiple of ``pieceSize``.
    let size: Int

    /// How many pieces there are.
    var pieceCount: Int { size / Self.pieceSize }

    /// Piece number `index`.
    func piece(_ index: Int) -> [UInt8] {
        var bytes = Self.base
        withUnsafeBytes(of: UInt64(index).littleEndian) { for (offset, byte) in $0.enumerated() { bytes[offset] = byte } }
        return bytes
    }

    /// Whether the file at `url` holds exactly this body, compared piece by piece.
    func matches(fileAt url: URL) throws -> Bool {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        for index in 0..<pieceCount {
            guard let read = try handle.read(upToCount: Self.pieceSize), read == Data(piece(index)) else { return false }
        }
        return (try handle.read(upToCount: 1) ?? Data()).isEmpty
    }
}

/// A generated JSON document of a given size or a little more: a secret in its first member and
/// one in its last (`access_token` and `password`, which the default rules redact), and between
/// them an array of objects whose strings hold quotes, braces and brackets among runs of plain
/// words, as text in real documents does. Generated in pieces, never stored.
struct LargeJSONDocument: Sendable {
    static let firstSecret = "first-secret-4f1d"
    static let lastSecret = "last-secret-9c2e"
    static let head = #"{"access_token": ""# + firstSecret + #"", "items": ["#
    static let tail = #"{}], "password": ""# + lastSecret + #""}"#
    /// The plain end of each item's text. (Half a kilobyte of it per item keeps a debug build's
    /// streaming redaction of the whole document within a few seconds; with items of 80 bytes it
    /// spent most of its time starting and ending values.)
    private static let words = String(repeating: "plain words between the escapes, bracketed once more; ", count: 9)

    /// The document's size at least; the items end at the first whole one past it.
    let size: Int

    /// The document in pieces of about 64 KiB, in order.
    func pieces() -> some Sequence<Data> {
        var written = 0
        var item = 0
        var finished = false
        return AnySequence {
            AnyIterator { () -> Data? in
                guard !finished else { return nil }
                var piece = written == 0 ? Self.head : ""
                while piece.utf8.count < 64 * 1024 && written + piece.utf8.count < size {
                    piece += #"{"id": \#(item), "text": "item \#(item): \"quoted\" {braced} [bracketed], ok; \#(Self.words)"}, "#
                    item += 1
                }
                if written + piece.utf8.count >= size {
                    piece += Self.tail
                    finished = true
                }
                written += piece.utf8.count
                return Data(piece.utf8)
            }
        }
    }
}

/// A real upstream on 127.0.0.1 that streams generated large bodies as fast as the reader takes
/// them (never more than the socket's buffers ahead): `GET /large/N` answers N bytes of
/// ``LargeBodyPattern`` with a Content-Length, `GET /large-gzip/N` the same bytes gzip-encoded on the
/// fly (chunked), `GET /large-json/N` a ``LargeJSONDocument`` of at least N bytes (chunked);
/// anything else answers a small text body.
final class LargeBodyUpstream: Sendable {
    /// The port it listens on.
    let port: Int
    private let channel: any Channel

    /// The base URL.
    var base: String { "http://127.0.0.1:\(port)" }

    /// Starts listening on a free port.
    static func start() async throws -> LargeBodyUpstream {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(LargeBodyHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return LargeBodyUpstream(port: channel.localAddress!.port!, channel: channel)
    }

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Stops listening.
    func stop() async {
        try? await channel.close()
    }
}

/// Answers one request at a time, writing the body while the channel is writable and resuming
/// when it becomes writable again.
private final class LargeBodyHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private struct Sending {
        let pattern: LargeBodyPattern
        var next = 0
        let gzip: ContentCodingStream?
        /// The pieces of a JSON document, sent instead of the pattern.
        var json: AnyIterator<Data>?
    }

    private var sending: Sending?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let parts = head.uri.split(separator: "/")
        guard parts.count == 2, ["large", "large-gzip", "large-json"].contains(parts[0]), let size = Int(parts[1]) else {
            let body = ByteBuffer(string: "small \(head.uri)")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok,
                                                                 headers: ["Content-Length": "\(body.readableBytes)"]))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let gzip = parts[0] == "large-gzip"
        if parts[0] == "large-json" {
            let headers: HTTPHeaders = ["Content-Type": "application/json", "Transfer-Encoding": "chunked"]
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            sending = Sending(pattern: LargeBodyPattern(size: 0), gzip: nil,
                              json: AnyIterator(LargeJSONDocument(size: size).pieces().makeIterator()))
            writeMore(context: context)
            return
        }
        var headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
        if gzip {
            headers.add(name: "Content-Encoding", value: "gzip")
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else {
            headers.add(name: "Content-Length", value: "\(size)")
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        sending = Sending(pattern: LargeBodyPattern(size: size), gzip: gzip ? ContentCodingStream(encoding: .gzip) : nil)
        writeMore(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { writeMore(context: context) }
        context.fireChannelWritabilityChanged()
    }

    private func writeMore(context: ChannelHandlerContext) {
        while var current = sending, context.channel.isWritable {
            if let json = current.json {
                guard let piece = json.next() else {
                    sending = nil
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                    return
                }
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: piece)))), promise: nil)
                continue
            }
            if current.next == current.pattern.pieceCount {
                sending = nil
                if let gzip = current.gzip, let last = try? gzip.finish(), !last.isEmpty {
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: last)))), promise: nil)
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            var bytes = Data(current.pattern.piece(current.next))
            current.next += 1
            sending = current
            if let gzip = current.gzip {
                bytes = (try? gzip.update(bytes)) ?? Data()
                if bytes.isEmpty { continue }
            }
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
        }
    }
}
