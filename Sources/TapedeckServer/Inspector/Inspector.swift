import TapedeckCore

/// The inspector of one server: the exchanges it keeps and where it reads the cassettes the page
/// lists. The replay server and the recording proxy each make one; `--no-admin` makes none.
package struct Inspector: Sendable {
    /// `replay` or the recording mode.
    package var mode: String
    /// The exchanges kept, and the live stream.
    package var exchanges: ExchangeStore
    /// The players whose cassettes the page lists: the replay server's deck and the cassettes
    /// `Tapedeck-Cassette` loaded, or the recording proxy's cassette.
    package var players: @Sendable () -> [Player]
    /// How many interactions the recording proxy recorded in this run (nil for the replay server).
    package var recordedThisRun: @Sendable () -> Int?

    /// Creates an inspector.
    package init(mode: String, exchanges: ExchangeStore, players: @escaping @Sendable () -> [Player],
                recordedThisRun: @escaping @Sendable () -> Int? = { nil }) {
        self.mode = mode
        self.exchanges = exchanges
        self.players = players
        self.recordedThisRun = recordedThisRun
    }
}
