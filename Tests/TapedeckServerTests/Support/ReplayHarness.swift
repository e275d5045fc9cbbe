import Foundation
@_spi(Internals) import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport

/// Starts a replay server on 127.0.0.1 with a free port and a temporary `$TAPEDECK_HOME`,
/// runs a test body against it and always stops it.
struct ReplayHarness {
    /// The running server.
    let server: TapedeckServer
    /// The responder, to reach the journal.
    let responder: ReplayMode
    /// The temporary CA folder.
    let authorityHome: URL
    /// Every delay scheduled, in order.
    let delays: Box

    /// `http://127.0.0.1:PORT`.
    var base: String { server.url }

    /// Runs `body` with a server over `files`.
    static func run<T>(files: [URL], options: PlaybackOptions = PlaybackOptions(), cassetteDirectory: URL? = nil,
                       configure: (inout ServerConfiguration) -> Void = { _ in },
                       _ body: (ReplayHarness) async throws -> T) async throws -> T {
        let home = try Fixtures.temporaryDirectory().appending(path: "home")
        let delays = Box()
        var configuration = ServerConfiguration(port: 0, cassetteDirectory: cassetteDirectory, authorityHome: home)
        configuration.idleTimeout = .seconds(Int64(Deadlines.serverIdle))
        configuration.delayObserver = { delay in delays.append(delay) }
        configure(&configuration)
        let deck = try ReplayMode.loadDeck(files: files, options: options)
        let responder = ReplayMode(deck: deck, library: cassetteDirectory.map { CassetteLibrary(directory: $0, options: options) },
                                        configuration: configuration, authority: CertificateAuthority(home: home))
        let server = try await TapedeckServer.start(configuration: configuration, mode: responder)
        let harness = ReplayHarness(server: server, responder: responder, authorityHome: home, delays: delays)
        do {
            let result = try await body(harness)
            try await server.shutdown()
            try? FileManager.default.removeItem(at: home.deletingLastPathComponent())
            return result
        } catch {
            try? await server.shutdown()
            try? FileManager.default.removeItem(at: home.deletingLastPathComponent())
            throw error
        }
    }

    /// The delays recorded so far.
    func scheduledDelays() -> [ResponseDelay] { delays.storage.withLock { $0 } }

    /// A thread-safe list the delay observer appends to.
    final class Box: Sendable {
        let storage = Locked<[ResponseDelay]>([])
        func append(_ delay: ResponseDelay) { storage.withLock { $0.append(delay) } }
    }
}
