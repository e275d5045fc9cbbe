import TapedeckCore

/// Every recorded response a player can play, prepared for the wire once (at load), identical
/// ones sharing one preparation: what the replay server and the recording proxy (for what its
/// cassette already holds) both serve from.
package struct PreparedResponses: Sendable {
    /// Every distinct prepared response, once.
    private let responses: [PreparedResponse]
    /// The position in ``responses`` of each of the player's interactions (``Playback/position``).
    private let responseOfInteraction: [Int]

    /// Prepares every interaction of `player`'s cassettes; one that cannot be sent (a body that
    /// cannot be encoded again) throws, naming the cassette and the place.
    init(_ player: Player) throws(ReplayLoadError) {
        var responses: [PreparedResponse] = []
        var responseOfInteraction: [Int] = []
        responseOfInteraction.reserveCapacity(player.interactions.count)
        var shared: [PreparationKey: Int] = [:]
        for (name, interactions) in player.cassetteContents {
            for (index, interaction) in interactions.enumerated() {
                let key = PreparationKey(interaction)
                if let existing = shared[key] {
                    responseOfInteraction.append(existing)
                    continue
                }
                do {
                    responses.append(try PreparedResponse(interaction))
                } catch {
                    throw ReplayLoadError(file: name, message: "interactions[\(index)].response.body: \(error)")
                }
                shared[key] = responses.count - 1
                responseOfInteraction.append(responses.count - 1)
            }
        }
        self.responses = responses
        self.responseOfInteraction = responseOfInteraction
    }

    /// The wire form of a played interaction; a stub's answer is prepared when it is served.
    package func response(for playback: Playback) throws(ContentCodingError) -> PreparedResponse {
        // A stub's answer, or the API document's, is made for the request.
        guard playback.position >= 0 else { return try PreparedResponse(playback.interaction) }
        return responses[responseOfInteraction[playback.position]]
    }
}

/// What a prepared response depends on: two interactions with equal keys are sent identically.
private struct PreparationKey: Hashable {
    let response: CassetteResponse
    let chunks: [StreamChunk]?
    let keepsLength: Bool

    init(_ interaction: Interaction) {
        response = interaction.response
        chunks = interaction.chunks
        keepsLength = interaction.request.method == "HEAD"
    }
}
