import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import TapedeckCore
import TapedeckNIO

/// Replays a chat, a gRPC call whose client waits for answers between its messages, to a client
/// as it speaks: its messages are read as they come; the first recorded chat of its method and
/// path that they follow, and that has something to send by now, is played through the player
/// (headers, sessions and exhaustion as for any request; only recordings are tried, so nothing
/// waits on the event loop), and that chat's ``GRPCConversation`` says what goes when. A call
/// that follows no recorded chat, or ends before any is ready, is answered as any call (by a
/// stub, say) once its body is in.
package struct GRPCCallReplay: Sendable {
    /// The recorded chats of the call's method and path.
    let candidates: [RecordedChat]
    let deck: ReplayDeck
    let answers: PlaybackAnswers
    let session: String

    /// Plays the call on `sink` as its messages come; `whole` answers it as a complete request.
    func run(_ request: IncomingRequest, sink: ResponseSink,
             whole: @escaping @Sendable (IncomingRequest, ResponseSink) -> Void) {
        guard let stream = request.bodyStream else { return whole(request, sink) }
        let player = GRPCCallPlayer(replay: self, request: request, sink: sink, whole: whole)
        stream.read(with: RequestBodyStream.Reader(part: player.take, end: player.clientEnded, failure: player.clientLeft))
    }
}

/// One call being replayed, on its connection's event loop.
private final class GRPCCallPlayer {
    private let replay: GRPCCallReplay
    private let request: IncomingRequest
    private let sink: ResponseSink
    private let whole: @Sendable (IncomingRequest, ResponseSink) -> Void
    private let encoding: String?
    /// The call as a cassette request, without its body.
    private let incoming: CassetteRequest
    /// Bytes received that do not make a whole message yet.
    private var pending = Data()
    private lazy var chat = GRPCChat(candidates: replay.candidates) { [unowned self] recording, sent in play(recording, sent: sent) }
    /// The inspector's id of the chat played, once one is.
    private var inspected: Int?
    /// The answer of the chat being played, as prepared for this client.
    private var answer: PreparedResponse?
    private var headSent = false
    /// Whether the call went to the complete-request path.
    private var handedOver = false

    init(replay: GRPCCallReplay, request: IncomingRequest, sink: ResponseSink,
         whole: @escaping @Sendable (IncomingRequest, ResponseSink) -> Void) {
        self.replay = replay
        self.request = request
        self.sink = sink
        self.whole = whole
        encoding = request.head.headerFields[.grpcEncoding]
        incoming = request.cassetteRequest()
    }

    /// Plays the call with a recording's body (a trial of the chat); the journal and the
    /// inspector note the one played with what the client had sent by then.
    private func play(_ recording: Interaction, sent: Body) -> Playback? {
        var played = incoming
        played.body = recording.request.body
        guard let playback = replay.deck.player.playRecording(played, session: replay.session) else { return nil }
        inspected = replay.answers.note(playback, for: Self.request(incoming, with: sent), session: replay.session)
        return playback
    }

    /// The call with this body.
    private static func request(_ call: CassetteRequest, with body: Body) -> CassetteRequest {
        var request = call
        request.body = body
        return request
    }

    func take(_ part: ByteBuffer) {
        pending.append(contentsOf: part.readableBytesView)
        while !handedOver, let message = nextMessage() {
            carryOut(chat.received(message))
        }
    }

    func clientEnded() {
        guard !handedOver else { return }
        carryOut(chat.clientEnded())
        logReceived()
    }

    /// The client reset the call before it ended: what it sent goes into the log all the same.
    func clientLeft() {
        logReceived()
    }

    /// Puts a played chat into the stubs' request log, as the chat says, and its messages into
    /// the inspector's exchange.
    private func logReceived() {
        guard let sent = chat.bodyToLog() else { return }
        replay.deck.player.logReceived(Self.request(incoming, with: sent), session: replay.session)
        if let inspected { replay.answers.exchanges?.requestEnded(id: inspected, body: sent) }
    }

    /// The next whole message received, decompressed; nil until one is whole.
    private func nextMessage() -> Data? {
        guard let length = GRPCMessage.framedLength(atStartOf: pending) else { return nil }
        let framed = Data(pending.prefix(length))
        pending.removeFirst(length)
        return GRPCMessage.split(GRPCCall.decompressed(framed, encoding: encoding))?.first?.bytes
    }

    /// Carries out a step of the chat: the chosen recording's answer is prepared for this client
    /// before its first actions.
    private func carryOut(_ step: GRPCChat.Step) {
        switch step {
        case .wait:
            break
        case .play(let playback, let actions):
            guard let prepared = try? replay.deck.prepared.response(for: playback) else { return handOver() }
            answer = prepared.negotiated(grpcAcceptEncoding: request.head.headerFields[.grpcAcceptEncoding]).framed(for: request)
            perform(actions)
        case .act(let actions):
            perform(actions)
        case .whole:
            handOver()
        }
    }

    /// Answers the call as a complete request once its body is in.
    private func handOver() {
        handedOver = true
        let (request, sink, whole) = (request, sink, whole)
        request.bodyStream?.collect { body in whole(request.whole(body), sink) }
    }

    private func perform(_ actions: [GRPCConversation.Action]) {
        guard let answer else { return }
        for action in actions {
            switch action {
            case .head:
                headSent = true
                sink.streamHead(answer.head)
                if answer.chunks == nil, answer.body.readableBytes > 0 { _ = sink.writeBody(answer.body) }
                sink.flush()
            case .message(let number):
                if let chunks = answer.chunks, number < chunks.count { _ = sink.writeBody(chunks[number]) }
            case .end:
                _ = sink.end(trailers: answer.trailers)
            case .depart(let reason):
                let trailers = GRPCErrorAnswer.departure(reason, path: String(request.path))
                if headSent {
                    _ = sink.end(trailers: HTTPHeaders(trailers))
                } else {
                    sink.send(GRPCErrorAnswer.noMatch, trailers: trailers)
                }
            }
        }
    }
}
