import TapedeckCore

/// Carries out the replay server's `.playChat` decisions: plays a recorded chat to a gRPC client
/// as it speaks (``GRPCCallReplay``), through the server's deck and answers.
package struct ChatRunner: Sendable {
    let deck: ReplayDeck
    let answers: PlaybackAnswers

    /// Plays the first of `candidates` the call follows; `whole` answers the call as a complete
    /// request when it follows none.
    func play(_ candidates: [RecordedChat], session: String, request: IncomingRequest, sink: ResponseSink,
              whole: @escaping @Sendable (IncomingRequest, ResponseSink) -> Void) {
        GRPCCallReplay(candidates: candidates, deck: deck, answers: answers, session: session).run(request, sink: sink, whole: whole)
    }
}
