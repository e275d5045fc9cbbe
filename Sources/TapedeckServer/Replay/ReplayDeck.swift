import TapedeckCore

/// Loaded cassettes ready to serve: the core's player, plus every response prepared for the wire.
package final class ReplayDeck: Sendable {
    /// The player that makes every match decision.
    package let player: Player
    /// Every response, prepared for the wire at load.
    package let prepared: PreparedResponses

    /// Prepares named cassettes under playback options; `stubs` are consulted after the cassettes'
    /// own, then `contract`, the API document.
    package init(cassettes: [(name: String, cassette: Cassette)], options: PlaybackOptions,
                hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = [], contract: APIContract? = nil) throws(ReplayLoadError) {
        player = Player(cassettes: cassettes, options: options, hooks: hooks, stubs: stubs, contract: contract)
        prepared = try PreparedResponses(player)
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
