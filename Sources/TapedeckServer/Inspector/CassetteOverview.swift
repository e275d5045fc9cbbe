import TapedeckCore

/// The answer of `GET /__tapedeck/cassettes`: the cassettes loaded, with their interactions and
/// how often each was played (over all sessions since the last reset).
package struct CassetteOverview: Sendable, Hashable, Codable {
    /// One interaction, as the page lists it.
    package struct Entry: Sendable, Hashable, Codable {
        /// Its position in the cassette.
        package var index: Int
        /// The recorded method.
        package var method: String
        /// The recorded URL.
        package var url: String
        /// The recorded status.
        package var status: Int
        /// How often it was played.
        package var plays: Int
    }

    /// One cassette.
    package struct Cassette: Sendable, Hashable, Codable {
        /// Its name (the path given).
        package var name: String
        /// How many interactions it holds.
        package var count: Int
        /// The first ``CassetteOverview/listLimit`` of them.
        package var interactions: [Entry]
    }

    /// The most interactions listed per cassette; a bigger one lists its first ones and its count.
    package static let listLimit = 1000

    /// `replay` or the recording mode.
    package var mode: String
    /// The cassettes, in search order.
    package var cassettes: [Cassette]
    /// How many interactions the recording proxy recorded in this run (absent for the replay server).
    package var recordedThisRun: Int?

    /// Reads the cassettes of an inspector's players.
    init(_ inspector: Inspector) {
        mode = inspector.mode
        recordedThisRun = inspector.recordedThisRun()
        cassettes = []
        for player in inspector.players() {
            var plays: [String: [Int: Int]] = [:]
            for played in player.playedCounts() { plays[played.cassette, default: [:]][played.index] = played.count }
            for name in player.cassettes {
                let interactions = player.interactions(inCassette: name)
                let listed = interactions.prefix(Self.listLimit).enumerated().map { index, interaction in
                    Entry(index: index, method: interaction.request.method, url: interaction.request.url,
                          status: interaction.response.status, plays: plays[name]?[index] ?? 0)
                }
                cassettes.append(Cassette(name: name, count: interactions.count, interactions: listed))
            }
        }
    }
}
