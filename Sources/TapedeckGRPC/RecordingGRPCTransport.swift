import Foundation
import GRPCCore
import Tapedeck

/// Records gRPC calls in process through a live transport (grpc-swift-nio-transport's HTTP/2
/// client, say), into the same cassettes the servers write, with the same modes, redaction and
/// secrets as `tapedeck record`. `TAPEDECK_MODE` overrides the mode.
///
/// ```swift
/// let live = try HTTP2ClientTransport.Posix(target: .dns(host: "greeter.internal", port: 443), transportSecurity: .tls)
/// let transport = try RecordingGRPCTransport(live: live, cassette: URL(filePath: "cassettes/greeter.json"))
/// try await withGRPCClient(transport: transport) { client in ... }
/// ```
///
/// A call is taken whole (all its request messages) before the mode decides: replayed when the
/// cassette holds it (new-episodes, once), forwarded and recorded otherwise. A call of a method
/// the cassette holds nothing of is forwarded as the client writes it, so a client that waits
/// for each answer before its next message (a chat) is recorded, with the time of each message,
/// and ``CassetteGRPCTransport`` plays it back as the client speaks. Answers reach the client as
/// the live service sends them, and the interaction is written once the status came.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public final class RecordingGRPCTransport<Live: ClientTransport>: ClientTransport {
    /// Messages are handed over in the live transport's byte type.
    public typealias Bytes = Live.Bytes

    /// The recording policy and cassette.
    package let recorder: Recorder
    private let live: Live
    private let clock: any Clock<Duration>
    /// Opened by ``connect()``: calls wait for it, as with ``CassetteGRPCTransport``.
    private let connected = Gate()

    /// Opens a cassette for recording through `live`.
    ///
    /// - Parameters:
    ///   - live: the transport that reaches the service (grpc-swift-nio-transport's, say).
    ///   - cassette: the file to record into (created when missing).
    ///   - mode: the mode unless `TAPEDECK_MODE` in `environment` names another.
    ///   - redaction: what is masked before anything is written; credentials by default.
    ///   - options: matching, latency for what is replayed, secrets (`<NAME>` in the cassette, the
    ///     real value sent to `live`).
    ///   - stubs: answers for calls the cassette does not hold, before the network.
    ///   - environment: where `TAPEDECK_MODE` is read.
    ///   - clock: what replayed latency waits on.
    public convenience init(live: Live, cassette: URL, mode: RecordMode = .newEpisodes, redaction: RedactionRules = .defaults,
                            options: PlaybackOptions = PlaybackOptions(), stubs: [Stub] = [],
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            clock: any Clock<Duration> = ContinuousClock()) throws {
        self.init(live: live, recorder: try Recorder(file: cassette, mode: RecordMode.fromEnvironment(environment, default: mode),
                                                     redaction: redaction, playback: options, stubs: stubs),
                  clock: clock)
    }

    /// Records with a recorder another connector holds (a test cassette's), into its cassette.
    package init(live: Live, recorder: Recorder, clock: any Clock<Duration> = ContinuousClock()) {
        self.live = live
        self.recorder = recorder
        self.clock = clock
    }

    /// The mode in force after `TAPEDECK_MODE`.
    public var mode: RecordMode { recorder.mode }

    /// The live transport's retry throttle.
    public var retryThrottle: RetryThrottle? { live.retryThrottle }

    /// Runs the live transport's connections.
    public func connect() async throws {
        connected.open()
        try await live.connect()
    }

    /// Shuts the live transport down gracefully.
    public func beginGracefulShutdown() {
        live.beginGracefulShutdown()
    }

    /// The live transport's configuration for the method.
    public func config(forMethod descriptor: MethodDescriptor) -> MethodConfig? {
        live.config(forMethod: descriptor)
    }

    /// Opens a call: once the client has written its whole request, it is replayed or forwarded
    /// as the mode says. A call the cassette could not answer whatever its messages (no recording
    /// or stub of its method, and recording on) is forwarded as the client writes it, as
    /// `tapedeck record` forwards it.
    public func withStream<T: Sendable>(descriptor: MethodDescriptor, options: CallOptions,
                                        _ closure: (_ stream: RPCStream<Inbound, Outbound>, _ context: ClientContext) async throws -> T)
        async throws -> T {
        await connected.wait()
        let call = ReplayedCall(descriptor: descriptor, timeout: options.timeout, player: recorder.player, clock: clock)
        if recorder.forwardsWhateverTheBody(call.cassetteRequest(metadata: Metadata(), messages: [])) {
            return try await forwardAsWritten(call, options: options, closure)
        }
        return try await withAnsweredStream(descriptor: descriptor, peer: "in-process:tapedeck-recording", closure) { [self] metadata, messages, response in
            try await answer(descriptor: descriptor, options: options, metadata: metadata, messages: messages, into: response)
        }
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

    /// Replays, refuses or forwards a whole request, as the mode says.
    private func answer(descriptor: MethodDescriptor, options: CallOptions, metadata: Metadata, messages: [GRPCMessage],
                        into response: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation) async throws {
        let call = ReplayedCall(descriptor: descriptor, timeout: options.timeout, player: recorder.player, clock: clock)
        let recorded = call.cassetteRequest(metadata: metadata, messages: messages)
        switch recorder.route(recorded) {
        case .replay(let playback):
            try await call.send(ReplayedCall.parts(of: playback), into: response)
        case .unmatched(let diagnosis):
            try await call.send(ReplayedCall.miss(diagnosis), into: response)
        case .forward:
            try await forward(recorded, descriptor: descriptor, options: options, into: response)
        }
    }

    /// Sends the call to the live service, passes its answer on part by part, and records it
    /// once the status came.
    private func forward(_ recorded: CassetteRequest, descriptor: MethodDescriptor, options: CallOptions,
                         into response: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation) async throws {
        let upstream = recorder.requestForUpstream(recorded)
        var answer = GRPCAnswer()
        try await live.withStream(descriptor: descriptor, options: options) { stream, _ in
            try await stream.outbound.write(.metadata(Metadata(headers: upstream.headers)))
            for message in GRPCMessage.split(upstream.body.data) ?? [] {
                try await stream.outbound.write(.message(Bytes([UInt8](message.bytes))))
            }
            await stream.outbound.finish()
            for try await part in stream.inbound {
                response.yield(part)
                if let interaction = answer.take(part, request: { recorded }) { try recorder.record(interaction) }
            }
        }
    }

    /// Forwards a call to the live service as the client writes it, and its answer to the client
    /// as it comes, so a client that waits for an answer before its next message (a chat) is
    /// served; the cassette gets each request message with its time (``ForwardedCall``).
    private func forwardAsWritten<T: Sendable>(_ call: ReplayedCall, options: CallOptions,
                                               _ closure: (_ stream: RPCStream<Inbound, Outbound>, _ context: ClientContext) async throws -> T)
        async throws -> T {
        let forwarded = ForwardedCall(call: call, recorder: recorder)
        return try await live.withStream(descriptor: call.descriptor, options: options) { stream, context in
            let outbound = RPCWriter.Closable(wrapping: ForwardingWriter(live: stream.outbound, call: forwarded))
            let inbound = RPCAsyncSequence(wrapping: stream.inbound.map { @Sendable part in
                try forwarded.received(part)
                return part
            })
            return try await closure(RPCStream(descriptor: stream.descriptor, inbound: inbound, outbound: outbound), context)
        }
    }
}
