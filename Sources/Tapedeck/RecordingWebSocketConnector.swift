import Foundation
import HTTPTypes
import TapedeckCore

/// Wraps a live ``WebSocketConnector`` and records conversations in process, with the modes,
/// redaction and secrets of `tapedeck record` (`TAPEDECK_MODE` overrides the mode): a handshake
/// the cassette already answers is replayed as ``CassetteWebSocketConnector`` would, any other goes
/// to `live`, and its conversation is recorded as it passes, each message with its side and time.
///
/// A conversation is written to the cassette when it ends: when either side closes, or the live
/// connection fails. Close every conversation before ``flush()``; one still open is not recorded.
public final class RecordingWebSocketConnector: WebSocketConnector {
    /// The recording policy and cassette.
    package let recorder: Recorder
    private let live: any WebSocketConnector
    private let clock: any Clock<Duration>

    /// Opens a cassette for recording through `live`.
    ///
    /// - Parameters:
    ///   - live: the connector that reaches the service (``URLSessionWebSocketConnector``, or
    ///     `NIOWebSocketConnector` from TapedeckAsyncHTTPClient).
    ///   - cassette: the file to record into (created when missing).
    ///   - mode: the mode unless `TAPEDECK_MODE` in `environment` names another.
    ///   - redaction: what is masked before anything is written, as for ``RecordingConnector``.
    ///   - options: matching, latency and secrets, as for ``RecordingConnector``.
    ///   - hooks: custom match rules, `beforePlayback` and `beforeRecord`.
    ///   - stubs: answers for handshakes the cassette does not hold, before the network.
    ///   - environment: where `TAPEDECK_MODE` is read.
    ///   - clock: what replayed conversations wait on.
    public convenience init(live: any WebSocketConnector, cassette: URL, mode: RecordMode = .newEpisodes,
                            redaction: RedactionRules = .defaults, options: PlaybackOptions = PlaybackOptions(),
                            hooks: PlaybackHooks = PlaybackHooks(), stubs: [Stub] = [],
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            clock: any Clock<Duration> = ContinuousClock()) throws {
        self.init(live: live, recorder: try Recorder(file: cassette, mode: RecordMode.fromEnvironment(environment, default: mode),
                                                     redaction: redaction, playback: options, hooks: hooks, stubs: stubs),
                  clock: clock)
    }

    /// Records into a cassette another connector holds (a test cassette's recording connector).
    package init(live: any WebSocketConnector, recorder: Recorder, clock: any Clock<Duration> = ContinuousClock()) {
        self.live = live
        self.recorder = recorder
        self.clock = clock
    }

    /// The mode in force after `TAPEDECK_MODE`.
    public var mode: RecordMode { recorder.mode }

    /// Replays a conversation the cassette has; opens and records the others as the mode says.
    ///
    /// - Throws: ``UnmatchedRequestError`` when the mode neither replays nor records the handshake;
    ///   what `live` throws when the service cannot be reached or refuses the upgrade.
    public func connect(_ request: HTTPRequest) async throws -> any WebSocketConnection {
        let handshake = CassetteRequest(webSocketHandshake: request)
        switch recorder.route(handshake) {
        case .replay(let playback):
            return try await ReplayedWebSocket.open(playback, handshake: handshake, clock: clock)
        case .unmatched(let diagnosis):
            throw UnmatchedRequestError(diagnosis: diagnosis)
        case .forward:
            var upstream = HTTPRequest(recorder.requestForUpstream(handshake)) ?? request
            upstream.scheme = request.scheme
            let start = ContinuousClock.now
            let connection = try await live.connect(upstream)
            let handshakeMs = start.duration(to: .now).recordedMilliseconds
            let recorder = recorder
            return RecordedWebSocket(connection) { messages in
                let headers = connection.handshakeResponse.map { HeaderList($0.headerFields) } ?? HeaderList()
                try recorder.record(Interaction(
                    recordedAt: Timestamp.now(), request: handshake,
                    response: CassetteResponse(status: 101, headers: headers, body: .empty),
                    timing: Timing(firstByteMs: handshakeMs, totalMs: handshakeMs), websocket: messages))
            }
        }
    }

    /// The stubs consulted before the network.
    public var stubs: StubSet { recorder.stubs }

    /// Writes every conversation recorded so far to disk now.
    public func flush() throws {
        try recorder.flush()
    }

    /// Writes everything recorded and ends the recording: another recorder may then open the
    /// cassette, which no two record at once (it is also ended when this is released).
    public func finish() throws {
        try recorder.finish()
    }
}

/// A live conversation being recorded: each message is noted, with its side and its time since
/// the handshake, before it is passed on (so a reply is never noted before what it answers), and
/// the transcript goes to `finished` once, when the conversation ends.
actor RecordedWebSocket: WebSocketConnection {
    private let live: any WebSocketConnection
    private let start = ContinuousClock.now
    private var messages: [WebSocketMessage] = []
    private var finished: (@Sendable ([WebSocketMessage]) throws -> Void)?
    nonisolated let handshakeResponse: HTTPResponse?

    init(_ live: any WebSocketConnection, finished: @escaping @Sendable ([WebSocketMessage]) throws -> Void) {
        self.live = live
        self.finished = finished
        self.handshakeResponse = live.handshakeResponse
    }

    func send(_ message: WebSocketMessage.Content) async throws {
        note(message, from: .client)
        try await live.send(message)
        if case .close = message { try finish() }
    }

    func receive() async throws -> WebSocketMessage.Content {
        let message: WebSocketMessage.Content
        do {
            message = try await live.receive()
        } catch {
            try? finish()  // the connection went: what was heard is kept
            throw error
        }
        note(message, from: .server)
        if case .close = message { try finish() }
        return message
    }

    func close(code: UInt16, reason: String) async throws {
        note(.close(code: code, reason: reason), from: .client)
        try await live.close(code: code, reason: reason)
        try finish()
    }

    private func note(_ content: WebSocketMessage.Content, from side: WebSocketMessage.Side) {
        guard finished != nil else { return }
        messages.append(WebSocketMessage(from: side, atMs: start.duration(to: .now).recordedMilliseconds, content: content))
    }

    private func finish() throws {
        guard let finished else { return }
        self.finished = nil
        try finished(messages)
    }
}
