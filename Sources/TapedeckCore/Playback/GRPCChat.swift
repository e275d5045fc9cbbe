import Foundation

/// A recorded chat (a gRPC call whose client waited for answers between its messages) and the
/// conversation it plays, made once when the cassettes are loaded.
package struct RecordedChat: Sendable {
    package let recording: Interaction
    package let conversation: GRPCConversation

    /// The recorded chats among `interactions`, by ``key(method:path:)``.
    package static func index(_ interactions: [Interaction]) -> [String: [RecordedChat]] {
        let chats = interactions.compactMap { recording in
            GRPCConversation(recording).map { RecordedChat(recording: recording, conversation: $0) }
        }
        return Dictionary(grouping: chats) { key(method: $0.recording.request.method, path: $0.recording.request.target.path) }
    }

    /// The index key of a call's method and path (`POST /package.Service/Method`).
    package static func key(method: String, path: some StringProtocol) -> String {
        "\(method) \(path)"
    }
}

/// One call's way through the recorded chats of its method and path, as its messages come, in
/// the manner of a state machine that returns steps: the first chat its messages follow that has
/// something to send by now is played (through `play`, which plays the call with that chat's
/// recorded body on the player, so headers, sessions and exhaustion count as for any request;
/// only recordings are tried, ``Player/playRecording(_:session:)``), and that chat's
/// ``GRPCConversation`` goes on from there. A call that follows no chat, or ends before one is
/// ready, is to be matched whole: only then may a stub answer it. The replay server and the
/// in-process transport both run chats through this one type and only carry out its steps.
package struct GRPCChat {
    /// What to do after the client's next message or its end.
    package enum Step {
        /// Nothing yet.
        case wait
        /// This recording was played for the call: carry out the actions on its answer.
        case play(Playback, [GRPCConversation.Action])
        /// Carry out the actions on the answer being played.
        case act([GRPCConversation.Action])
        /// No chat fits: match the call whole once its request has ended.
        case whole
    }

    private let candidates: [RecordedChat]
    private let play: (Interaction, Body) -> Playback?
    /// The client's messages so far (decompressed).
    private var messages: [Data] = []
    private var playing: GRPCConversation?
    private var handedOver = false
    private var logged = false

    /// - Parameters:
    ///   - candidates: the recorded chats of the call's method and path.
    ///   - play: plays the call with this recording's body; nil when no recording answers it. The
    ///     client's messages so far come with it as a body (``sent``), for what is noted of the call.
    package init(candidates: [RecordedChat], play: @escaping (_ recording: Interaction, _ sent: Body) -> Playback?) {
        self.candidates = candidates
        self.play = play
    }

    /// The body of what goes into the stubs' request log (what `verify` counts) for a call played
    /// as a chat, once, when the client ended or left the call: every message it sent (the chat
    /// was tried with its recording's body, which the client may not have followed). Nil for a
    /// call handed over to whole matching, which is logged as it is played, and once logged.
    package mutating func bodyToLog() -> Body? {
        guard playing != nil, !handedOver, !logged else { return nil }
        logged = true
        return sent
    }

    /// The client's messages so far as a request body, framed: the call's body for a runner that
    /// matches it whole once it ends (the in-process transport).
    package var sent: Body {
        Body(GRPCMessage.frame(messages.map { GRPCMessage(bytes: $0, compressed: false) }), style: .grpc)
    }

    /// The client's next message (decompressed) came.
    package mutating func received(_ message: Data) -> Step {
        messages.append(message)
        guard !handedOver else { return .wait }
        if var playing {
            let actions = playing.received(message)
            self.playing = playing
            return .act(actions)
        }
        return choose(ended: false)
    }

    /// The client ended its messages.
    package mutating func clientEnded() -> Step {
        guard !handedOver else { return .whole }
        if var playing {
            let actions = playing.clientEnded()
            self.playing = playing
            return .act(actions)
        }
        return choose(ended: true)
    }

    /// Plays the first recorded chat the messages follow that has something to send now; hands
    /// the call over to whole matching when none can be played any more.
    private mutating func choose(ended: Bool) -> Step {
        for candidate in candidates where candidate.conversation.follows(messages) {
            var trial = candidate.conversation
            guard !actions(of: &trial, ended: ended).isEmpty,
                  let playback = play(candidate.recording, sent),
                  var conversation = GRPCConversation(playback.interaction), conversation.follows(messages) else { continue }
            let actions = actions(of: &conversation, ended: ended)
            playing = conversation
            return .play(playback, actions)
        }
        if ended || !candidates.contains(where: { $0.conversation.follows(messages) }) {
            handedOver = true
            return .whole
        }
        return .wait
    }

    /// What `conversation` does with the messages so far (and the client's end).
    private func actions(of conversation: inout GRPCConversation, ended: Bool) -> [GRPCConversation.Action] {
        var actions = conversation.start()
        for message in messages { actions += conversation.received(message) }
        if ended { actions += conversation.clientEnded() }
        return actions
    }
}
