import Foundation

/// Replays a recorded WebSocket conversation (SPEC section 13) as a state machine that returns
/// actions: the server's messages go in order; one the recording shows after a client message
/// goes only once the client's message at that place has arrived and matched
/// (``WebSocketMessage/matches(_:)``). A client message off the recording closes with 1008 and
/// a reason naming the recorded message. The replay server and the connector both play through
/// this one type and only carry its actions out.
public struct WebSocketConversation: Sendable {
    /// What the side playing the server does next.
    public enum Action: Sendable, Hashable {
        /// Sends a recorded server message, `after` the action or client message before it.
        case send(WebSocketMessage.Content, after: Duration)
        /// Sends a close frame with this code and reason, `after` what came before, and ends the conversation.
        case close(code: UInt16, reason: String, after: Duration)
    }

    /// Where a client left the recording.
    public struct Departure: Sendable, Hashable {
        /// The index of the recorded message expected then; the conversation's length when it was over.
        public var index: Int
        /// What the recording held there; nil when it was over.
        public var expected: WebSocketMessage?
        /// What the client sent instead.
        public var received: WebSocketMessage.Content
    }

    /// The close code for a client message off the recording (policy violation).
    public static let offRecordingCode: UInt16 = 1008

    /// The recorded conversation.
    public let messages: [WebSocketMessage]
    /// The index of the next recorded message.
    public private(set) var position = 0
    /// Where the client left the recording; nil while it follows it.
    public private(set) var departure: Departure?
    /// Whether a close was sent or answered: nothing more is played.
    public private(set) var isOver = false
    /// Whether the client sent a close: the close played now answers it, and the connection ends.
    public private(set) var clientHasClosed = false
    private let latency: LatencyOption
    private let secrets: Secrets

    /// - Parameters:
    ///   - messages: the recorded conversation.
    ///   - latency: how server messages are paced: `none` sends at once, `recorded` keeps each
    ///     message's recorded gap to the one before it, `scale:F` multiplies that gap, and
    ///     `fixed:MS` waits MS before each server message.
    ///   - secrets: concealed in a client's message before it is matched, as in a request.
    public init(_ messages: [WebSocketMessage], latency: LatencyOption = .none, secrets: Secrets = .none) {
        self.messages = messages
        self.latency = latency
        self.secrets = secrets
    }

    /// The actions once the upgrade is answered: the server's messages up to the first client message.
    public mutating func start() -> [Action] {
        playServerMessages()
    }

    /// The actions once a client message arrived.
    public mutating func received(_ content: WebSocketMessage.Content) -> [Action] {
        guard !isOver else { return [] }
        if case .close = content { clientHasClosed = true }
        guard position < messages.count else {
            if case .close(let code, _) = content { return answerClose(code) }
            return leave(expected: nil, received: content, reason: "no more client messages recorded")
        }
        let expected = messages[position]
        guard expected.matches(secrets.conceal(content)) else {
            if case .close(let code, _) = content {
                // The client ended early: noted, and answered as any close is.
                departure = Departure(index: position, expected: expected, received: content)
                return answerClose(code)
            }
            return leave(expected: expected, received: content, reason: "expected \(expected.summary(limit: 40))")
        }
        position += 1
        if case .close(let code, _) = content {
            // A recorded server close right after the client's is the answer; otherwise the client's code is echoed.
            if position < messages.count, messages[position].from == .server, case .close = messages[position].content {
                return playServerMessages()
            }
            return answerClose(code)
        }
        return playServerMessages()
    }

    /// The recorded server messages from `position` up to the next client message.
    private mutating func playServerMessages() -> [Action] {
        var actions: [Action] = []
        while position < messages.count, messages[position].from == .server {
            let message = messages[position]
            let gap = message.atMs - (position > 0 ? messages[position - 1].atMs : 0)
            position += 1
            if case .close(let code, let reason) = message.content {
                isOver = true
                actions.append(.close(code: code ?? 1000, reason: reason, after: delay(gap: gap)))
                break
            }
            actions.append(.send(message.content, after: delay(gap: gap)))
        }
        return actions
    }

    private mutating func answerClose(_ code: UInt16?) -> [Action] {
        isOver = true
        return [.close(code: code ?? 1000, reason: "", after: .zero)]
    }

    /// Closes with 1008, the reason saying what was recorded and what the client sent instead: the
    /// first in 64 bytes at most, so that both fit the 123 bytes of a close reason.
    private mutating func leave(expected: WebSocketMessage?, received: WebSocketMessage.Content, reason: String) -> [Action] {
        departure = Departure(index: position, expected: expected, received: received)
        isOver = true
        let sent = WebSocketMessage(from: .client, atMs: 0, content: received).summary(limit: 30)
        let told = Self.closeReason(reason, limit: 64)
        return [.close(code: Self.offRecordingCode, reason: Self.closeReason("\(told); got \(sent)"), after: .zero)]
    }

    private func delay(gap milliseconds: Double) -> Duration {
        switch latency {
        case .none: return .zero
        case .recorded: return LatencyModel.duration(milliseconds: milliseconds)
        case .scale(let factor): return LatencyModel.duration(milliseconds: milliseconds * factor)
        case .fixed(let fixed): return LatencyModel.duration(milliseconds: fixed)
        }
    }

    /// `reason` cut to `limit` bytes, by default what a close frame holds
    /// (``WebSocketMessage/maximumReasonBytes``), at a character boundary.
    public static func closeReason(_ reason: String, limit: Int = WebSocketMessage.maximumReasonBytes) -> String {
        var kept = ""
        for character in reason {
            guard kept.utf8.count + character.utf8.count <= limit else { break }
            kept.append(character)
        }
        return kept
    }
}
