#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import NIOHTTP1
import NIOSSL

/// Where a forwarded request goes: scheme, host and port.
package struct UpstreamOrigin: Hashable, Sendable {
    /// `http` or `https`.
    var scheme: String
    /// The host name or address, without brackets.
    var host: String
    /// The port.
    var port: Int

    /// Whether the connection speaks TLS.
    var isSecure: Bool { scheme == "https" }
}

/// One keep-alive HTTP/1.1 connection to an upstream, opened on a client connection's event
/// loop and carrying one exchange at a time, or one stream of an ``UpstreamHTTP2Connection``
/// carrying one exchange. SwiftNIO's HTTP/1 client codec (or its HTTP/2-to-HTTP/1 translation)
/// does the framing: no redirect is followed and no body is decompressed, the bytes pass as they come.
final class UpstreamConnection {
    /// Where it is connected.
    let origin: UpstreamOrigin
    private let channel: any Channel
    private let handler: UpstreamResponseHandler
    /// Checks the exchange on the connection for silence. It is armed for one timeout and
    /// re-armed while exchanges keep coming, so a busy connection schedules a timer once per
    /// timeout rather than once per request.
    private var watchdog: Scheduled<Void>?

    private init(origin: UpstreamOrigin, channel: any Channel, handler: UpstreamResponseHandler) {
        self.origin = origin
        self.channel = channel
        self.handler = handler
    }

    /// Whether it is open and carries no exchange.
    var isIdle: Bool { channel.isActive && handler.exchange == nil && handler.isReusable }

    /// Whether it is open and carries an exchange.
    var isBusy: Bool { channel.isActive && handler.exchange != nil }

    /// Connects on `eventLoop` through `dialer`, with TLS (and SNI for names) when the origin is https.
    static func connect(to origin: UpstreamOrigin, tls: NIOSSLContext, timeout: TimeAmount, on eventLoop: any EventLoop,
                        dialer: UpstreamDialer) -> EventLoopFuture<UpstreamConnection> {
        let connecting = dialer.dial(origin, origin.isSecure ? tls : nil, timeout, eventLoop) { operations in
            // The headers sent come from the client's request, which the server's decoder validated.
            try operations.addHTTPClientHandlers(enableOutboundHeaderValidation: false)
            try operations.addHandler(UpstreamResponseHandler())
        }
        return connecting.flatMapThrowing { channel in
            let handler = try channel.pipeline.syncOperations.handler(type: UpstreamResponseHandler.self)
            return UpstreamConnection(origin: origin, channel: channel, handler: handler)
        }
    }

    /// One HTTP/2 stream, with an ``UpstreamResponseHandler`` in its pipeline, for one exchange.
    convenience init(origin: UpstreamOrigin, stream: any Channel) throws {
        let handler = try stream.pipeline.syncOperations.handler(type: UpstreamResponseHandler.self)
        handler.isReusable = false
        self.init(origin: origin, channel: stream, handler: handler)
    }

    /// Sends a whole request at the end of the event loop's round; the answer goes to `exchange` piece by piece.
    func send(_ head: HTTPRequestHead, body: ForwardedBody, to exchange: UpstreamExchange, flushingWith deferredFlush: DeferredFlush) {
        handler.exchange = exchange
        handler.isReusable = handler.isReusable && head.isKeepAlive
        if watchdog == nil { watch(until: channel.eventLoop.now + exchange.timeout) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        switch body {
        case .whole(let body):
            if body.readableBytes > 0 { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
            channel.write(HTTPClientRequestPart.end(nil), promise: nil)
            deferredFlush.flush(channel)
        case .spooled(let spooled):
            sendFile(spooled)
            deferredFlush.flush(channel)
        case .arriving(let upload):
            deferredFlush.flush(channel)
            sendArriving(upload, to: exchange)
        case .streamed(let stream):
            // Each part goes as it arrives. A client that leaves first ends the exchange as the
            // client's leaving, which resets the upstream's stream too.
            deferredFlush.flush(channel)
            let channel = channel
            stream.read(with: RequestBodyStream.Reader(
                part: { part in channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(part)), promise: nil) },
                end: { channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil) },
                failure: { [weak exchange] in exchange?.failed(.clientGone) }))
        }
    }

    /// Sends a spooled body in pieces read on SwiftNIO's thread pool, each once the upstream took
    /// the last (reading waits while the connection is not writable), then the end. A file that
    /// cannot be read closes the connection: the exchange hears that the upstream closed.
    private func sendFile(_ spooled: SpooledBody) {
        let (channel, loop) = (channel, channel.eventLoop)
        spooled.file.readPieces(on: loop, allocator: channel.allocator) { piece in
            guard channel.isActive else { return loop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
            let written = channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(piece)))
            return channel.isWritable ? loop.makeSucceededVoidFuture() : written
        }.whenComplete { result in
            // The spool may go once nothing reads it.
            withExtendedLifetime(spooled) {}
            switch result {
            case .success: channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            case .failure: channel.close(promise: nil)
            }
        }
    }

    /// Sends an upload as it arrives: each piece once it is in the spool's file and the upstream
    /// took the last (read on SwiftNIO's thread pool), then the end once the client sent it. A
    /// client that leaves first fails the exchange as its leaving; a file that cannot be read
    /// closes the connection.
    private func sendArriving(_ upload: ArrivingUpload, to exchange: UpstreamExchange) {
        let (channel, loop) = (channel, channel.eventLoop)
        let file: NIOFileHandle
        do {
            file = try NIOFileHandle(_deprecatedPath: upload.file.path, mode: .read, flags: .posix(flags: O_NOFOLLOW, mode: 0))
        } catch {
            channel.close(promise: nil)
            return
        }
        let fileIO = NonBlockingFileIO(threadPool: .singleton)
        // The file is closed only here, between reads, never while one is under way.
        func send(from offset: Int) {
            guard channel.isActive else {
                try? file.close()
                return
            }
            if offset < upload.available {
                let end = min(upload.available, offset + ArrivingUpload.pieceSize)
                fileIO.read(fileHandle: file, fromOffset: Int64(offset), byteCount: end - offset, allocator: channel.allocator, eventLoop: loop)
                    .assumeIsolated().whenComplete { read in
                        guard case .success(let piece) = read, piece.readableBytes == end - offset else {
                            try? file.close()
                            return channel.close(promise: nil)
                        }
                        pace(channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(piece))), next: end)
                    }
            } else if upload.whole != nil {
                try? file.close()
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            } else if upload.hasFailed {
                try? file.close()
                exchange.failed(.clientGone)
            } else {
                upload.whenChanged { send(from: offset) }
            }
        }
        /// Goes on at once while the upstream takes more, else once it took this piece.
        func pace(_ written: EventLoopFuture<Void>, next: Int) {
            if channel.isWritable { send(from: next) } else { written.assumeIsolated().whenComplete { _ in send(from: next) } }
        }
        send(from: 0)
    }

    /// The client connection closed: an exchange still on it fails as the client's leaving, then
    /// the upstream connection closes.
    func clientLeft() {
        let exchange = handler.exchange
        handler.exchange = nil
        exchange?.failed(.clientGone)
        close()
    }

    /// Closes the connection; an exchange still on it hears that the upstream closed.
    func close() {
        watchdog?.cancel()
        watchdog = nil
        channel.close(promise: nil)
    }

    private func watch(until deadline: NIODeadline) {
        watchdog = channel.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            guard let self else { return }
            watchdog = nil
            if let next = handler.exchange?.silenceDeadline() { watch(until: next) }
        }
    }
}

/// Hands the upstream's answer to the exchange on the connection, and stops reading from the
/// upstream while the client cannot take more (backpressure).
final class UpstreamResponseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// The exchange waiting for an answer on this connection.
    var exchange: UpstreamExchange?
    /// Whether both sides allow another request after this one.
    var isReusable = true

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if !head.isKeepAlive { isReusable = false }
            exchange.receivedHead(head)
        case .body(let buffer):
            guard let wait = exchange.receivedBody(buffer) else { return }
            // An HTTP/2 stream has no synchronous options; its auto-read is set all the same, and
            // a stream that does not read holds back its flow-control window (per-stream back-pressure).
            let channel = context.channel
            Self.setAutoRead(false, on: channel)
            wait.assumeIsolated().whenComplete { _ in
                Self.setAutoRead(true, on: channel)
                channel.read()
            }
        case .end(let trailers):
            self.exchange = nil
            exchange.receivedEnd(trailers: trailers, connectionReusable: isReusable)
        }
    }

    /// Sets auto-read at once where the channel allows (a socket); an HTTP/2 stream has no
    /// synchronous options, and is set through its future.
    private static func setAutoRead(_ isOn: Bool, on channel: any Channel) {
        if let options = channel.syncOptions {
            try? options.setOption(.autoRead, value: isOn)
        } else {
            channel.setOption(.autoRead, value: isOn).whenFailure { _ in }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        exchange?.flush()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isReusable = false
        let exchange = self.exchange
        self.exchange = nil
        exchange?.upstreamClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        isReusable = false
        let exchange = self.exchange
        self.exchange = nil
        exchange?.upstreamFailed(error)
        context.close(promise: nil)
    }
}

/// A forwarded request's body: whole in memory or in a file, or still arriving from a client that may wait for answers
/// before it sends the rest (``RequestBodyStream``).
enum ForwardedBody {
    case whole(ByteBuffer)
    /// Past the in-memory limit, in a file (``RequestBodyCollector``).
    case spooled(SpooledBody)
    /// Past the in-memory limit and still arriving into its file (``ArrivingUpload``).
    case arriving(ArrivingUpload)
    case streamed(RequestBodyStream)
}
