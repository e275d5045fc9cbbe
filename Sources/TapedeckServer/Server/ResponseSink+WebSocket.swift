import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import TapedeckCore
import TapedeckNIO

extension ResponseSink {
    /// Accepts the client's WebSocket upgrade with the answer's headers and plays `conversation`
    /// (``WebSocketPlayer``); `ended` gets the conversation once the connection closed. A request
    /// that is not an upgrade gets 426, one without a valid key 400.
    func playWebSocket(_ conversation: WebSocketConversation, answer: HTTPHeaders, to request: IncomingRequest,
                       ended: @escaping @Sendable (WebSocketConversation) -> Void) {
        guard WebSocketHandshake.isUpgrade(request.head) else {
            return refuse(Refusal(.upgradeRequired, code: "websocket-upgrade-required",
                                  "this interaction is a WebSocket conversation: ask for it with Upgrade: websocket"))
        }
        guard let key = webSocketKey(of: request) else { return }
        accept(WebSocketHandshake.accepting(request, key: key, answer: answer)) { WebSocketPlayer(conversation, ended: ended) }
    }

    /// The client's `Sec-WebSocket-Key`, or nil having refused the upgrade with 400 when it is not one.
    private func webSocketKey(of request: IncomingRequest) -> String? {
        guard let key = WebSocketHandshake.key(of: request.head) else {
            refuse(Refusal(.badRequest, code: "websocket-key", "a WebSocket upgrade needs a Sec-WebSocket-Key of 16 bytes in base64"))
            return nil
        }
        return key
    }

    /// Sends the 101 and hands the connection to the conversation handler `make` builds on the event loop.
    private func accept(_ acceptance: WebSocketHandshake.Acceptance, conversation make: @escaping @Sendable () -> any ChannelHandler) {
        let sink = self
        let run: @Sendable () -> Void = {
            sink.handler.value.acceptWebSocket(acceptance, context: sink.context.value, conversation: make())
        }
        if eventLoop.inEventLoop { run() } else { eventLoop.execute(run) }
    }
}

extension ResponseSink {
    /// Records a WebSocket conversation: opens the upgrade upstream and, once it answers 101,
    /// accepts the client's upgrade with the upstream's headers and relays whole messages both
    /// ways (``WebSocketRelay``), noting each. An upstream that answers otherwise has its answer
    /// passed back unrecorded; one that cannot be reached gets 502.
    func recordWebSocket(_ recording: WebSocketRecording, request: IncomingRequest,
                         finished: @escaping @Sendable (FinishedExchange?) -> Void) {
        guard let key = webSocketKey(of: request) else { return finished(nil) }
        let sink = self
        let asked = eventLoop.now
        UpstreamWebSocket.open(recording, clientKey: key, maxMessageSize: maxMessageSize, on: eventLoop).whenComplete { result in
            switch result {
            case .failure(let error):
                finished(nil)
                sink.refuse(Refusal(.badGateway, code: "upstream-unreachable",
                                    "cannot open the WebSocket to \(recording.host):\(recording.port): \(UpstreamFailureText.describe(error))"))
            case .success(.refused(let head, let body)):
                finished(nil)
                sink.send(HTTPResponse(status: HTTPResponse.Status(head.status), headerFields: HTTPFields(head.headers)), body: body)
            case .success(.upgraded(let head, let upstream)):
                let handshakeMs = UpstreamExchange.milliseconds(sink.eventLoop.now - asked)
                let transcript = WebSocketTranscript(start: sink.eventLoop.now) { transcript in
                    let exchange = FinishedExchange(request: recording.cassetteRequest, status: 101, headers: HeaderList(head.headers),
                                                    body: Data(), chunks: nil, timing: Timing(firstByteMs: handshakeMs, totalMs: handshakeMs),
                                                    websocket: transcript.messages)
                    finished(exchange)
                }
                let (client, server) = WebSocketRelay.pair(transcript: transcript)
                do {
                    try upstream.pipeline.syncOperations.addHandler(server)
                } catch {
                    upstream.close(promise: nil)
                }
                let bound = NIOLoopBound(client, eventLoop: sink.eventLoop)
                sink.accept(WebSocketHandshake.accepting(request, key: key, answer: head.headers)) { bound.value }
            }
        }
    }
}
