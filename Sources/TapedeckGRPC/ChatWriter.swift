import Foundation
import GRPCCore
import Tapedeck
@_spi(Internals) import TapedeckCore

/// The client's side of a replayed chat, a call whose client waits for answers between its
/// messages: each message goes to the core's ``GRPCChat`` as it is written, and the answer parts
/// it lets go are put into the response at once, so a client that reads an answer before it
/// writes its next message is served. A call that follows no recorded chat is answered whole when
/// the client finishes, as any call (``RequestWriter``). A chat's answers are not paced by the
/// latency option; they go as soon as the client's messages allow them.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class ChatWriter<Bytes: GRPCContiguousBytes & Sendable>: ClosableRPCWriterProtocol, Sendable {
    private struct State {
        var metadata = Metadata()
        var chat: GRPCChat?
        var playback: Playback?
        var whole = false
    }

    private let state = Locked(State())
    private let call: ReplayedCall
    private let candidates: [RecordedChat]
    private let response: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation

    init(call: ReplayedCall, candidates: [RecordedChat], response: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation) {
        self.call = call
        self.candidates = candidates
        self.response = response
    }

    func write(_ element: RPCRequestPart<Bytes>) async throws {
        let answered: [RPCResponsePart<[UInt8]>] = state.withLock { state in
            switch element {
            case .metadata(let more):
                state.metadata.add(contentsOf: more)
                return []
            case .message(let bytes):
                let message = bytes.withUnsafeBytes { Data($0) }
                if state.chat == nil { state.chat = chat(metadata: state.metadata) }
                return self.parts(for: state.chat!.received(message), state: &state)
            }
        }
        put(answered)
    }

    func write(contentsOf elements: some Sequence<RPCRequestPart<Bytes>>) async throws {
        for element in elements { try await write(element) }
    }

    func finish() async {
        let (answered, whole, request) = state.withLock { state in
            if state.chat == nil { state.chat = chat(metadata: state.metadata) }
            let answered = self.parts(for: state.chat!.clientEnded(), state: &state)
            return (answered, state.whole, call.cassetteRequest(metadata: state.metadata, body: state.chat!.sent))
        }
        guard whole else {
            put(answered)
            return logPlayed()
        }
        do {
            try await call.send(call.play(request), into: response)
            response.finish()
        } catch {
            response.finish(throwing: error)
        }
    }

    /// The client gave up on its request: nothing more is answered.
    func finish(throwing error: any Error) async {
        logPlayed()
        response.finish(throwing: error)
    }

    /// Puts a played chat into the stubs' request log, as the chat says.
    private func logPlayed() {
        let request: CassetteRequest? = state.withLock { state in
            state.chat?.bodyToLog().map { call.cassetteRequest(metadata: state.metadata, body: $0) }
        }
        if let request { call.player.logReceived(request) }
    }

    /// The chats of the call, played on the transport's player with the call's metadata.
    private func chat(metadata: Metadata) -> GRPCChat {
        let call = call
        return GRPCChat(candidates: candidates) { candidate, _ in
            call.player.playRecording(call.cassetteRequest(metadata: metadata, body: candidate.request.body))
        }
    }

    /// The response parts of a step; the playback it starts is kept.
    private func parts(for step: GRPCChat.Step, state: inout State) -> [RPCResponsePart<[UInt8]>] {
        switch step {
        case .wait:
            return []
        case .whole:
            state.whole = true
            return []
        case .play(let playback, let actions):
            state.playback = playback
            return actions.flatMap { parts(for: $0, of: playback.interaction) }
        case .act(let actions):
            guard let interaction = state.playback?.interaction else { return [] }
            return actions.flatMap { parts(for: $0, of: interaction) }
        }
    }

    /// What one action of the chat sends: the recorded parts, or UNIMPLEMENTED off the recording.
    private func parts(for action: GRPCConversation.Action, of interaction: Interaction) -> [RPCResponsePart<[UInt8]>] {
        switch action {
        case .head:
            // An answer not held as timed messages goes whole with its metadata.
            let messages = interaction.chunks == nil ? GRPCMessage.split(interaction.responseBodyData) ?? [] : []
            return [.metadata(Metadata(headers: interaction.response.headers))] + messages.map { .message([UInt8]($0.bytes)) }
        case .message(let number):
            guard let chunks = interaction.chunks, number < chunks.count,
                  let message = GRPCMessage.split(chunks[number].data)?.first else { return [] }
            return [.message([UInt8](message.bytes))]
        case .end:
            return [ReplayedCall.status(of: interaction)]
        case .depart(let reason):
            let text = GRPCStatusText.departure(path: "/" + call.descriptor.fullyQualifiedMethod, reason: reason)
            return [.status(Status(code: .unimplemented, message: text), [:])]
        }
    }

    /// Puts parts into the response; a status ends it.
    private func put(_ parts: [RPCResponsePart<[UInt8]>]) {
        for part in parts {
            response.yield(part.map { Bytes($0) })
            if case .status = part { response.finish() }
        }
    }
}
