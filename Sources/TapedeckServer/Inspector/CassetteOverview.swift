import TapedeckCore

/// The answer of `GET /__tapedeck/cassettes`: the cassettes loaded, with their interactions and
/// how often each was played (over all sessions since the last reset).
public struct CassetteOverview: Sendable, Hashable, Codable {
    /// One interaction, as the page lists it.
    public struct Entry: Sendable, Hashable, Codable {
        /// Its position in the cassette.
        public var index: Int
        /// The recorded method.
        public var method: String
        /// The recorded URL.
        public var url: String
        /// The recorded status.
        public var status: Int
        /// How often it was played.
        public var plays: Int
    }

    /// One cassette.
    public struct Cassette: Sendable, Hashable, Codable {
        /// Its name (the path given).
        public var name: String
        /// How many interactions it holds.
        public var count: Int
        /// The first ``CassetteOverview/listLimit`` of them.
        public var interactions: [Entry]
    }

    /// The most interactions listed per cassette; a bigger one lists its first ones and its count.
    public static let listLimit = 1000

    /// `replay` or the recording mode.
    public var mode: String
    /// The cassettes, in search order.
    public var cassettes: [Cassette]
    /// How many interactions the recording proxy recorded in this run (absent for the replay server).
    public var recordedThisRun: Int?

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
