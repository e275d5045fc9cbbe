import Foundation
import NIOCore
import TapedeckCore

/// The body of a request handed on before it ended (a gRPC call on an HTTP/2 stream: a
/// bidirectional client may wait for an answer before it sends its next message). Its parts are
/// kept as they arrive, so that whoever reads it gets them all from the first, and a request sent
/// again (a retry on a new upstream connection) sends them again; the whole body is recorded at
/// the end. Lives on its connection's event loop: every call is made there.
package final class RequestBodyStream: Sendable {
    /// Who reads the body: each part, then the end, or the failure.
    struct Reader {
        var part: (ByteBuffer) -> Void
        var end: () -> Void
        var failure: () -> Void
    }

    private struct State {
        var parts: [ByteBuffer] = []
        /// When each part arrived.
        var arrivals: [NIODeadline] = []
        var ended = false
        var failed = false
        var reader: Reader?
    }

    private let state: NIOLoopBoundBox<State>
    private let eventLoop: any EventLoop

    package init(eventLoop: any EventLoop) {
        state = NIOLoopBoundBox(State(), eventLoop: eventLoop)
        self.eventLoop = eventLoop
    }

    /// The parts received so far, joined.
    var received: ByteBuffer {
        var joined = ByteBuffer()
        for var part in state.value.parts { joined.writeBuffer(&part) }
        return joined
    }

    /// Whether the client sent the whole body.
    var hasEnded: Bool { state.value.ended }

    /// A part arrived from the client.
    func append(_ part: ByteBuffer) {
        state.value.parts.append(part)
        state.value.arrivals.append(eventLoop.now)
        state.value.reader?.part(part)
    }

    /// The client sent the end of the body.
    func finish() {
        state.value.ended = true
        state.value.reader?.end()
    }

    /// The client left before the end.
    func fail() {
        guard !state.value.ended, !state.value.failed else { return }
        state.value.failed = true
        state.value.reader?.failure()
        state.value.reader = nil
    }

    /// Makes `reader` the body's reader: it gets every part from the first, then the rest as they
    /// come. A reader set earlier hears nothing more.
    func read(with reader: Reader) {
        state.value.reader = reader
        for part in state.value.parts { reader.part(part) }
        if state.value.ended { reader.end() }
        if state.value.failed { reader.failure() }
    }

    /// When each gRPC message of the body so far came, in milliseconds from `start`: the arrival
    /// of the part that completed it (``GRPCCall/messages(acrossPieces:)``). Nil when the body is
    /// not whole gRPC messages.
    func messageTimes(since start: NIODeadline) -> [Double]? {
        let pieces = zip(state.value.parts, state.value.arrivals).map { part, arrival in
            StreamChunk(atMs: UpstreamExchange.milliseconds(max(.zero, arrival - start)), data: Data(part.readableBytesView))
        }
        return GRPCCall.messages(acrossPieces: pieces)?.map { $0.atMs ?? 0 }
    }

    /// The body of a gRPC call as its upstream gets it: each message, once whole, with the secrets'
    /// placeholders replaced by their values and framed again with its new length
    /// (``Secrets/revealing(_:asGRPCMessages:encoding:)``; `encoding` is the call's `grpc-encoding`).
    /// A message is handed on only once all of it is in, since a placeholder may be cut between two
    /// parts; bytes left over at the end go as they are.
    func revealingMessages(_ secrets: Secrets, encoding: String?) -> RequestBodyStream {
        let revealed = RequestBodyStream(eventLoop: eventLoop)
        var pending = Data()
        read(with: Reader(
            part: { part in
                pending.append(contentsOf: part.readableBytesView)
                var whole = 0
                while let length = GRPCMessage.framedLength(atStartOf: pending[(pending.startIndex + whole)...]) { whole += length }
                guard whole > 0 else { return }
                revealed.append(ByteBuffer(bytes: secrets.revealing(pending.prefix(whole), asGRPCMessages: true, encoding: encoding)))
                pending = Data(pending.dropFirst(whole))
            },
            end: {
                if !pending.isEmpty { revealed.append(ByteBuffer(bytes: pending)) }
                revealed.finish()
            },
            failure: { revealed.fail() }))
        return revealed
    }

    /// Calls `body` with the whole body once it has ended (not at all when the client left first).
    func collect(_ body: @escaping (ByteBuffer) -> Void) {
        read(with: Reader(part: { _ in }, end: { [self] in body(received) }, failure: {}))
    }
}
