import Dispatch
import Foundation
@_spi(Internals) import TapedeckCore

/// What `tapedeck record` tells its user on standard output as it goes: a line per recorded
/// exchange (`recorded GET /users/1 200`) when standard output is a terminal or with `--verbose`,
/// and a summary on exit (`saved 4 interactions to api.json`) unless `--quiet`.
///
/// The recorder tells of an exchange on whatever thread recorded it, a server's event loop among
/// them, so the lines are written from a queue of their own: a slow terminal never holds a
/// connection up.
final class RecordFeedback: Sendable {
    /// Whether a line is printed per recorded exchange.
    let showsExchanges: Bool
    /// Whether the summary is printed on exit.
    let showsSummary: Bool
    /// Whether requests are shown by path (a reverse proxy: one upstream) rather than by URL.
    private let byPath: Bool
    private let recorded = Locked(0)
    private let queue = DispatchQueue(label: "tapedeck.record.feedback")

    /// Creates the feedback of a recording: `quiet` and `verbose` are the command's flags,
    /// `isTerminal` whether standard output is one, `byPath` whether it records one upstream.
    init(quiet: Bool, verbose: Bool, isTerminal: Bool, byPath: Bool) {
        showsExchanges = !quiet && (verbose || isTerminal)
        showsSummary = !quiet
        self.byPath = byPath
    }

    /// The hook the recorder calls with each interaction it wrote.
    var afterRecord: @Sendable (Interaction) -> Void {
        { [self] interaction in
            recorded.withLock { $0 += 1 }
            guard showsExchanges else { return }
            let line = Self.line(for: interaction, byPath: byPath)
            queue.async { FileHandleOutput.standardOutput(line) }
        }
    }

    /// Prints the summary, after every line still queued, given what the cassette holds now.
    func finish(cassette: String, holding total: Int) {
        queue.sync {}
        guard showsSummary else { return }
        let exists = FileManager.default.fileExists(atPath: cassette)
        FileHandleOutput.standardOutput(Self.summary(recorded: recorded.withLock { $0 }, total: total, cassette: cassette, exists: exists))
    }

    /// `recorded METHOD PATH STATUS`, the path with its query (the whole URL when `byPath` is false),
    /// as the cassette holds it: redacted, secrets as placeholders.
    static func line(for interaction: Interaction, byPath: Bool) -> String {
        let request = interaction.request
        var shown = request.url
        if byPath {
            let target = request.target
            shown = target.path + (target.query.map { "?" + $0 } ?? "")
        }
        return "recorded \(request.method) \(shown) \(interaction.response.status)"
    }

    /// `saved 4 interactions to api.json`, with how many the cassette holds when it held some
    /// before, or that nothing was recorded.
    static func summary(recorded: Int, total: Int, cassette: String, exists: Bool) -> String {
        func interactions(_ count: Int) -> String { count == 1 ? "1 interaction" : "\(count) interactions" }
        guard recorded > 0 else {
            return exists ? "nothing recorded; \(cassette) holds \(interactions(total))" : "nothing recorded; \(cassette) not written"
        }
        if total == recorded { return "saved \(interactions(recorded)) to \(cassette)" }
        return "saved \(recorded) new \(recorded == 1 ? "interaction" : "interactions") to \(cassette) (\(total) in all)"
    }
}
