import Foundation
import HTTPTypes
import TapedeckCore

/// Wraps a live connector and records in process, with the same modes and redaction as
/// `tapedeck record`. `TAPEDECK_MODE` overrides the mode, so a suite is re-recorded
/// without code changes.
public final class RecordingConnector: HTTPConnector {
    /// The recording policy and cassette.
    package let recorder: Recorder
    private let live: any HTTPConnector
    private let clock: any Clock<Duration>

    /// Opens a cassette for recording through `live`.
    ///
    /// - Parameters:
    ///   - live: the connector that reaches the service; by default an ephemeral ``URLSessionConnector``.
    ///   - cassette: the file to record into (created when missing).
    ///   - mode: the mode unless `TAPEDECK_MODE` in `environment` names another.
    ///   - redaction: what is masked before anything is written; ``RedactionRules/defaults`` masks credentials.
    ///   - options: matching, exhaustion, latency, secrets (`<NAME>` in the cassette, the real value
    ///     sent to `live`) and expiry (`rerecord` records expired interactions again).
    ///   - hooks: custom match rules, `beforePlayback` and `beforeRecord`.
    ///   - stubs: answers that win over the network when the cassette has no recording.
    ///   - environment: where `TAPEDECK_MODE` is read.
    ///   - clock: what replayed latency waits on.
    public init(live: any HTTPConnector = URLSessionConnector(), cassette: URL, mode: RecordMode = .newEpisodes,
                redaction: RedactionRules = .defaults, options: PlaybackOptions = PlaybackOptions(),
                hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = [],
                environment: [String: String] = ProcessInfo.processInfo.environment,
                clock: any Clock<Duration> = ContinuousClock()) throws {
        self.live = live
        self.clock = clock
        self.recorder = try Recorder(file: cassette, mode: RecordMode.fromEnvironment(environment, default: mode),
                                     redaction: redaction, playback: options, hooks: hooks, stubs: stubs)
    }

    /// The mode in force after `TAPEDECK_MODE`.
    public var mode: RecordMode { recorder.mode }

    /// Replays what the cassette has, forwards and records the rest as the mode says.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let recorded = CassetteRequest(request, body: body)
        switch recorder.route(recorded) {
        case .replay(let playback):
            try await wait(playback.delay.total, on: clock)
            if let fault = playback.fault { throw fault.urlError(for: recorded.url) }
            return playback.decodedResponse()
        case .unmatched(let diagnosis):
            throw UnmatchedRequestError(diagnosis: diagnosis)
        case .forward:
            let upstream = recorder.requestForUpstream(recorded)
            let start = ContinuousClock.now
            let (response, data) = try await live.send(HTTPRequest(upstream) ?? request, body: body == nil ? nil : upstream.body.data)
            let rounded = start.duration(to: .now).recordedMilliseconds
            var headers = HeaderList(response.headerFields)
            // URLSession hands bodies over decoded; the cassette keeps the coding header and the
            // decoded body, which is exactly its stored form.
            headers.remove("Content-Length")
            try recorder.record(Interaction(
                recordedAt: Timestamp.now(),
                request: recorded,
                response: CassetteResponse(status: response.status.code, headers: headers, body: Body(data)),
                timing: Timing(firstByteMs: rounded, totalMs: rounded)))
            return (response, data)
        }
    }

    /// The stubs consulted before the network: add more while a test runs.
    public var stubs: StubSet { recorder.stubs }

    /// The requests this connector received that fit `pattern`, oldest first.
    public func verify(_ pattern: RequestPattern) -> [CassetteRequest] {
        recorder.stubs.verify(pattern)
    }

    /// Writes everything recorded so far to disk now.
    public func flush() throws {
        try recorder.flush()
    }

    /// Writes everything recorded and ends the recording: another recorder may then open the
    /// cassette, which no two record at once (it is also ended when this is released).
    public func finish() throws {
        try recorder.finish()
    }
}
