import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import TapedeckCore

extension ResponseSink {
    /// Sends a played interaction (recorded or stubbed) to the client that asked: in the coding its
    /// `Accept-Encoding` accepts, with `Tapedeck-Warning: expired` when it is past its expiry age,
    /// after its delay; or breaks the connection when a stub asks for a fault. Both servers answer
    /// through this one place.
    package func serve(_ playback: Playback, prepared: PreparedResponse, to request: IncomingRequest) {
        let fields = request.head.headerFields
        var response = prepared.negotiated(acceptEncoding: fields[.acceptEncoding]).framed(for: request)
        if playback.isExpired { response = response.adding(header: "Tapedeck-Warning", value: "expired") }
        var delay = playback.delay
        if response.isGRPC {
            response = response.negotiated(grpcAcceptEncoding: fields[.grpcAcceptEncoding])
            if let deadline = GRPCCall.deadline(grpcTimeout: fields[.grpcTimeout]) {
                (response, delay) = response.keeping(deadline: deadline, delay: delay)
            }
        }
        if let fault = playback.fault {
            fail(with: fault, response: response, delay: delay, arrival: request.arrival)
        } else {
            send(response, delay: delay, arrival: request.arrival)
        }
    }

    /// Breaks the connection the way a stub's fault says, after the stub's delay, instead of answering:
    /// - `reset`: closes with a TCP reset (SO_LINGER 0);
    /// - `empty`: closes without sending a byte;
    /// - `truncate`: sends the head (with the full Content-Length) and half the body, then closes;
    /// - `malformed`: sends bytes that are not HTTP, then closes;
    /// - `rst-stream`: on HTTP/2, resets the stream with `INTERNAL_ERROR`;
    /// - `goaway`: on HTTP/2, sends `GOAWAY` (`INTERNAL_ERROR`, this stream the last) and closes the connection.
    ///
    /// On HTTP/1.1 `rst-stream` and `goaway` are `reset`; on HTTP/2 the faults of HTTP/1.1 reset the stream
    /// (`CANCEL`), `truncate` after half the body.
    package func fail(with fault: StubFault, response: PreparedResponse, delay: ResponseDelay, arrival: NIODeadline) {
        let wait = TimeAmount(delay.total)
        let sink = self
        eventLoop.scheduleTask(deadline: arrival + wait) {
            sink.performFault(fault, response: response)
        }
    }

    private func performFault(_ fault: StubFault, response: PreparedResponse) {
        let context = self.context
        let stream = context.value.channel
        // The parent of an HTTP/1.1 connection is the listening socket; only a stream's is a connection.
        let isStream = context.value.pipeline.isHTTP2Stream
        switch fault {
        case .rstStream where isStream:
            stream.pipeline.resetHTTP2Stream(.internalError)
            stream.close(promise: nil)
        case .goaway where isStream:
            guard let connection = stream.parent else { return }
            stream.getOption(HTTP2StreamChannelOptions.streamID).whenSuccess { id in
                let goaway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: id, errorCode: .internalError, opaqueData: nil))
                connection.writeAndFlush(goaway).whenComplete { _ in connection.close(promise: nil) }
            }
        case .reset, .rstStream, .goaway:
            let channel = context.value.channel
            guard let socket = channel as? SocketOptionProvider else { return channel.close(promise: nil) }
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        case .empty:
            context.value.close(promise: nil)
        case .truncate:
            var head = response.head
            head.headers.replaceOrAdd(name: "Content-Length", value: String(max(response.body.readableBytes, 2)))
            handler.value.writeHead(head, answer: answer, context: context.value)
            let half = response.body.getSlice(at: response.body.readerIndex, length: response.body.readableBytes / 2) ?? ByteBuffer()
            handler.value.writeBody(half, answer: answer, context: context.value, flush: true, promise: nil)
            context.value.close(promise: nil)
        case .malformed:
            // Written below the HTTP encoder, so the bytes leave as they are (through TLS when intercepted).
            let channel = context.value.channel
            let garbage = ByteBuffer(string: "TAPEDECK-FAULT this is not HTTP\r\n\u{0}\u{1}\r\n\r\n")
            if let encoder = try? channel.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) {
                encoder.writeAndFlush(NIOAny(garbage)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        }
    }
}

extension ChannelPipeline {
    /// Whether this is the pipeline of an HTTP/2 stream (served through SwiftNIO's HTTP/1 translation).
    var isHTTP2Stream: Bool {
        (try? syncOperations.handler(type: HTTP2FramePayloadToHTTP1ServerCodec.self)) != nil
    }

    /// Writes and flushes an `RST_STREAM` with `code` on this HTTP/2 stream, below the HTTP/2-to-HTTP/1
    /// translation, as the frame it is; nothing on a pipeline that is not a stream's.
    func resetHTTP2Stream(_ code: NIOHTTP2.HTTP2ErrorCode) {
        guard let codec = try? syncOperations.context(handlerType: HTTP2FramePayloadToHTTP1ServerCodec.self) else { return }
        codec.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(code)), promise: nil)
    }
}
