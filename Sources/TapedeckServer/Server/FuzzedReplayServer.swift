import Foundation
import NIOCore
import TapedeckCore

/// The fuzz package's one door into the server (`Fuzz/`, a package of its own, so it cannot
/// see this package's `package` declarations): a replay server whose real connection handlers
/// it installs on an embedded channel. Nothing else of the server is public.
@_spi(Fuzz) public struct FuzzedReplayServer: Sendable {
    private let mode: ReplayMode
    private let configuration: ServerConfiguration

    /// Loads `cassette`, selects others from `cassetteDirectory` by `Tapedeck-Cassette`, and keeps
    /// bodies to `maxBodySize`; a broken cassette throws naming the file.
    public init(cassette: URL, cassetteDirectory: URL, authorityHome: URL, maxBodySize: Int) throws {
        configuration = ServerConfiguration(port: 0, maxBodySize: maxBodySize, cassetteDirectory: cassetteDirectory,
                                            authorityHome: authorityHome)
        let deck = try ReplayMode.loadDeck(files: [cassette], options: PlaybackOptions())
        let library = CassetteLibrary(directory: cassetteDirectory, options: PlaybackOptions())
        mode = ReplayMode(deck: deck, library: library, configuration: configuration,
                              authority: CertificateAuthority(home: authorityHome))
    }

    /// Installs the server's handlers on `channel`, as for an accepted connection.
    public func configure(_ channel: any Channel) throws {
        try ConnectionServing.configure(channel, mode: mode, configuration: configuration)
    }
}
