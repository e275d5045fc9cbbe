import TapedeckCore

/// Loaded cassettes ready to serve: the core's player, plus every response prepared for the wire.
package final class ReplayDeck: Sendable {
    /// The player that makes every match decision.
    package let player: Player
    /// Every distinct prepared response, once.
    private let responses: [PreparedResponse]
    /// For each cassette, the position in ``responses`` of each interaction's response.
    private let responseOfInteraction: [String: [Int]]

    /// Prepares named cassettes under playback options; `stubs` are consulted after the cassettes' own.
    package init(cassettes: [(name: String, cassette: Cassette)], options: PlaybackOptions,
                hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = []) throws(ReplayLoadError) {
        var responses: [PreparedResponse] = []
        var responseOfInteraction: [String: [Int]] = [:]
        // Identical recorded answers share one prepared response: encoded once, stored once.
        var shared: [PreparationKey: Int] = [:]
        for (name, cassette) in cassettes where responseOfInteraction[name] == nil {
            var positions: [Int] = []
            positions.reserveCapacity(cassette.interactions.count)
            for (index, interaction) in cassette.interactions.enumerated() {
                let key = PreparationKey(interaction)
                if let existing = shared[key] {
                    positions.append(existing)
                    continue
                }
                do {
                    responses.append(try PreparedResponse(interaction))
                } catch {
                    throw ReplayLoadError(file: name, message: "interactions[\(index)].response.body: \(error)")
                }
                shared[key] = responses.count - 1
                positions.append(responses.count - 1)
            }
            responseOfInteraction[name] = positions
        }
        self.responses = responses
        self.responseOfInteraction = responseOfInteraction
        player = Player(cassettes: cassettes, options: options, hooks: hooks, stubs: stubs)
    }

    /// The wire form of a played interaction; a stub's answer is prepared when it is served.
    package func response(for playback: Playback) -> PreparedResponse? {
        if playback.stub != nil { return try? PreparedResponse(playback.interaction) }
        return responseOfInteraction[playback.cassette].map { responses[$0[playback.index]] }
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

/// A cassette that parsed but cannot be served, such as a body that cannot be encoded again.
package struct ReplayLoadError: Error, CustomStringConvertible, Sendable {
    /// The cassette.
    package let file: String
    /// What is wrong, starting with the place.
    package let message: String

    package var description: String { "\(file): \(message)" }
}
