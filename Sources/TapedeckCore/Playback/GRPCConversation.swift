import Foundation

/// Replays a recorded gRPC call whose client waited for answers between its messages (a chat the
/// recording proxy forwarded as it arrived, so each request message has its time, `atMs` from
/// the request's start) as a state machine that returns actions; the replay server only carries
/// them out. The answer's head goes once the request messages recorded before the first response
/// byte have come; each answer message once those recorded before it have; the trailers once the
/// client has ended. Each request message must be the recorded one at its place (both compared
/// decompressed); a client off the recording ends the call.
package struct GRPCConversation: Sendable {
    /// What the side playing the server does next.
    package enum Action: Sendable, Hashable {
        /// Send the recorded response head (with the body, when the answer is not held as timed messages).
        case head
        /// Send recorded answer message `index`: the interaction's chunk of that number.
        case message(Int)
        /// Send the recorded trailers: the call is over.
        case end
        /// The client left the recording: end the call with `grpc-status: 12` and this reason.
        case depart(String)
    }

    /// The recorded request messages, decompressed.
    package let expected: [Data]
    /// How many request messages precede the head, and each answer message.
    private let headGate: Int
    private let messageGates: [Int]
    /// How many request messages have come, all as recorded.
    package private(set) var received = 0
    private var headSent = false
    private var nextMessage = 0
    /// Whether the call ended (as recorded, or off the recording).
    package private(set) var isOver = false

    /// The conversation of `interaction`; nil unless it is such a call: a gRPC request whose
    /// messages have times, answered before its last message came.
    package init?(_ interaction: Interaction) {
        guard GRPCCall.isGRPC(interaction.request), let times = interaction.request.body.messageTimes,
              let messages = GRPCMessage.split(interaction.request.body.data), times.count == messages.count else { return nil }
        let firstByte = interaction.timing?.firstByteMs ?? 0
        let gate = { (time: Double) in times.filter { $0 <= time }.count }
        headGate = gate(firstByte)
        messageGates = (interaction.chunks ?? []).map { gate(firstByte + $0.atMs) }
        guard headGate < messages.count else { return nil }
        expected = messages.map(\.bytes)
    }

    /// The actions once the call opened: what the recording sent before the first request message.
    package mutating func start() -> [Action] {
        openGates()
    }

    /// The actions once the client's next message (decompressed) came.
    package mutating func received(_ message: Data) -> [Action] {
        guard !isOver else { return [] }
        guard received < expected.count else {
            return leave("message \(received + 1) is past the \(expected.count) recorded")
        }
        guard message == expected[received] else {
            return leave("message \(received + 1) differs from the recorded one")
        }
        received += 1
        return openGates()
    }

    /// The actions once the client ended its messages: the rest of the answer and its trailers.
    package mutating func clientEnded() -> [Action] {
        guard !isOver else { return [] }
        guard received == expected.count else {
            return leave("the client ended after \(received) of the \(expected.count) recorded messages")
        }
        isOver = true
        return openGates() + [.end]
    }

    /// Whether the recording is still followed with `messages` as the first request messages.
    package func follows(_ messages: [Data]) -> Bool {
        messages.count <= expected.count && zip(messages, expected).allSatisfy { $0 == $1 }
    }

    /// The head and the answer messages whose request messages have all come.
    private mutating func openGates() -> [Action] {
        var actions: [Action] = []
        if !headSent, received >= headGate {
            headSent = true
            actions.append(.head)
        }
        while headSent, nextMessage < messageGates.count, received >= messageGates[nextMessage] {
            actions.append(.message(nextMessage))
            nextMessage += 1
        }
        return actions
    }

    private mutating func leave(_ reason: String) -> [Action] {
        isOver = true
        return [.depart(reason)]
    }
}
