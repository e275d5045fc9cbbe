import TapedeckCore

/// Loaded cassettes ready to serve: the core's player, plus every response prepared for the wire.
public final class ReplayDeck: Sendable {
    /// The player that makes every match decision.
    public let player: Player
    private let prepared: [String: [PreparedResponse]]

    /// Prepares named cassettes under playback options.
    public init(cassettes: [(name: String, cassette: Cassette)], options: PlaybackOptions) throws(ReplayLoadError) {
        var prepared: [String: [PreparedResponse]] = [:]
        for (name, cassette) in cassettes where prepared[name] == nil {
            var responses: [PreparedResponse] = []
            responses.reserveCapacity(cassette.interactions.count)
            for (index, interaction) in cassette.interactions.enumerated() {
                do {
                    responses.append(try PreparedResponse(interaction))
                } catch {
                    throw ReplayLoadError(file: name, message: "interactions[\(index)].response.body: \(error)")
                }
            }
            prepared[name] = responses
        }
        self.prepared = prepared
        player = Player(cassettes: cassettes, options: options)
    }

    /// The wire form of a played interaction.
    public func response(for playback: Playback) -> PreparedResponse? {
        prepared[playback.cassette]?[playback.index]
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
