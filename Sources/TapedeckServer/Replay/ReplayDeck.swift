import TapedeckCore

/// Loaded cassettes ready to serve: the core's player, plus every response prepared for the wire.
public final class ReplayDeck: Sendable {
    /// The player that makes every match decision.
    public let player: Player
    private let prepared: [String: [PreparedResponse]]

    /// Prepares named cassettes under playback options; `stubs` are consulted after the cassettes' own.
    public init(cassettes: [(name: String, cassette: Cassette)], options: PlaybackOptions,
                hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = []) throws(ReplayLoadError) {
        var prepared: [String: [PreparedResponse]] = [:]
        // Identical recorded answers share one prepared response: encoded once, stored once.
        var shared: [PreparationKey: PreparedResponse] = [:]
        for (name, cassette) in cassettes where prepared[name] == nil {
            var responses: [PreparedResponse] = []
            responses.reserveCapacity(cassette.interactions.count)
            for (index, interaction) in cassette.interactions.enumerated() {
                let key = PreparationKey(interaction)
                if let existing = shared[key] {
                    responses.append(existing)
                    continue
                }
                do {
                    let response = try PreparedResponse(interaction)
                    shared[key] = response
                    responses.append(response)
                } catch {
                    throw ReplayLoadError(file: name, message: "interactions[\(index)].response.body: \(error)")
                }
            }
            prepared[name] = responses
        }
        self.prepared = prepared
        player = Player(cassettes: cassettes, options: options, hooks: hooks, stubs: stubs)
    }

    /// The wire form of a played interaction; a stub's answer is prepared when it is served.
    public func response(for playback: Playback) -> PreparedResponse? {
        if playback.stub != nil { return try? PreparedResponse(playback.interaction) }
        return prepared[playback.cassette]?[playback.index]
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
public struct ReplayLoadError: Error, CustomStringConvertible, Sendable {
    /// The cassette.
    public let file: String
    /// What is wrong, starting with the place.
    public let message: String

    public var description: String { "\(file): \(message)" }
}
