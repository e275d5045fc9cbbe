import Foundation
import HTTPTypes
import TapedeckCore

/// Replays a cassette in process: the same matching, exhaustion policy and latency as the
/// replay server, and no socket at all.
///
/// ```swift
/// let connector = try CassetteConnector(cassette: URL(filePath: "cassettes/example.json"))
/// let (response, data) = try await connector.send(
///     HTTPRequest(method: .get, scheme: "http", authority: "api.example.test", path: "/plaintext?name=Shawn"),
///     body: nil)
/// ```
public final class CassetteConnector: HTTPConnector {
    /// The player holding the cassette and the playback positions.
    package let player: Player
    private let clock: any Clock<Duration>

    /// Loads a cassette file.
    ///
    /// - Parameters:
    ///   - file: the cassette to replay.
    ///   - options: matching, exhaustion, latency, secrets and expiry; see ``PlaybackOptions``.
    ///   - hooks: custom match rules and `beforePlayback`; see ``PlaybackHooks``.
    ///   - stubs: answers for what the cassette does not hold, as values or closures; see ``Stub``.
    ///   - codec: what reads the file (and its side files).
    ///   - clock: the clock latency waits on; tests inject one to check delays without sleeping.
    public convenience init(cassette file: URL, options: PlaybackOptions = PlaybackOptions(), hooks: PlaybackHooks = PlaybackHooks(),
                            stubs: [Stub] = [], codec: CassetteCodec = CassetteCodec(),
                            clock: any Clock<Duration> = ContinuousClock()) throws {
        self.init(cassette: try codec.load(file), name: file.path, options: options, hooks: hooks, stubs: stubs, clock: clock)
    }

    /// Replays a cassette already in memory (an empty one, `Cassette()`, to serve stubs only).
    public init(cassette: Cassette, name: String = "cassette", options: PlaybackOptions = PlaybackOptions(),
                hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = [], clock: any Clock<Duration> = ContinuousClock()) {
        self.player = Player(cassette: cassette, name: name, options: options, hooks: hooks, stubs: stubs)
        self.clock = clock
    }

    /// Serves only stubs: for a service nobody recorded.
    public convenience init(stubs: [Stub], options: PlaybackOptions = PlaybackOptions(), hooks: PlaybackHooks = PlaybackHooks(),
                            clock: any Clock<Duration> = ContinuousClock()) {
        self.init(cassette: Cassette(), name: "stubs", options: options, hooks: hooks, stubs: stubs, clock: clock)
    }

    /// The stubs: add more while a test runs (`connector.stubs.add([...])`), list or remove them.
    public var stubs: StubSet { player.stubs }

    /// The requests this connector received that fit `pattern`, oldest first: what a test asserts its client sent.
    public func verify(_ pattern: RequestPattern) -> [CassetteRequest] {
        player.stubs.verify(pattern)
    }

    /// Serves the matching recorded response, after the latency model's delay.
    ///
    /// - Throws: ``UnmatchedRequestError`` when nothing matches; `CancellationError` when cancelled while waiting.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        try await serve(CassetteRequest(request, body: body), from: player, clock: clock)
    }

    /// Puts playback, stub scenarios and the request log back to the start.
    public func reset() {
        player.reset()
    }
}

/// Plays a request on a player and waits its delay: shared by the replaying connectors.
func serve(_ request: CassetteRequest, from player: Player, clock: any Clock<Duration>) async throws -> (HTTPResponse, Data) {
    switch player.play(request) {
    case .played(let playback):
        try await wait(playback.delay.total, on: clock)
        if let fault = playback.fault { throw fault.urlError(for: request.url) }
        return playback.decodedResponse()
    case .unmatched(let diagnosis):
        throw UnmatchedRequestError(diagnosis: diagnosis)
    }
}

/// Waits on a clock, unless there is nothing to wait (the gRPC transport waits with it too).
package func wait(_ duration: Duration, on clock: any Clock<Duration>) async throws {
    guard duration > .zero else { return try Task.checkCancellation() }
    try await clock.sleep(for: duration)
}

extension Clock<Duration> {
    /// Sleeps for a duration from now.
    func sleep(for duration: Duration) async throws {
        try await sleep(until: now.advanced(by: duration), tolerance: nil)
    }
}
