import Foundation
@_spi(Internals) import TapedeckCore

/// The cassettes `Tapedeck-Cassette: NAME` selects: `NAME.json` under a folder, loaded on first
/// use and kept.
package final class CassetteLibrary: Sendable {
    /// The folder.
    package let directory: URL
    private let options: PlaybackOptions
    private let codec: CassetteCodec
    private let decks = Locked<[String: ReplayDeck]>([:])

    /// Creates a library over a folder.
    package init(directory: URL, options: PlaybackOptions, codec: CassetteCodec = CassetteCodec()) {
        self.directory = directory
        self.options = options
        self.codec = codec
    }

    /// The deck of a cassette name, or why it cannot be served.
    package func deck(named name: String) -> Result<ReplayDeck, CassetteSelectionError> {
        if let reason = ControlHeaders.refusal(forCassetteName: name) { return .failure(CassetteSelectionError(reason: reason)) }
        if let deck = decks.withLock({ $0[name] }) { return .success(deck) }
        let file = directory.appending(path: name + ".json")
        guard FileManager.default.fileExists(atPath: file.path) else {
            return .failure(CassetteSelectionError(reason: "no cassette \(name).json in \(directory.path)"))
        }
        if let reason = CassetteFileGuard.refusal(file: file, directory: directory) { return .failure(CassetteSelectionError(reason: reason)) }
        do {
            let cassette = try codec.load(file)
            let deck = try ReplayDeck(cassettes: [(name, cassette)], options: options)
            return .success(decks.withLock { decks in
                if let existing = decks[name] { return existing }
                decks[name] = deck
                return deck
            })
        } catch let error as CassetteError {
            return .failure(CassetteSelectionError(reason: error.description))
        } catch {
            return .failure(CassetteSelectionError(reason: "\(error)"))
        }
    }

    /// Every deck loaded so far.
    package var loaded: [ReplayDeck] { decks.withLock { Array($0.values) } }
}

/// Why a `Tapedeck-Cassette` header cannot be honoured; answered with 400.
package struct CassetteSelectionError: Error, CustomStringConvertible, Sendable {
    /// The reason, for the client.
    package let reason: String

    package var description: String { reason }
}
