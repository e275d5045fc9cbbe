import Foundation
import GRPCCore
import Tapedeck
@_spi(Internals) import TapedeckCore

/// Replays gRPC calls in process from the cassettes the servers write (SPEC section 12): a
/// grpc-swift 2 `ClientTransport`, so a generated client (or `GRPCClient` itself) runs against a
/// recording with no socket and no server process.
///
/// ```swift
/// let transport = try CassetteGRPCTransport(cassette: URL(filePath: "cassettes/greeter.json"))
/// try await withGRPCClient(transport: transport) { client in
///     let greeter = Demo_Greeter.Client(wrapping: client)
///     let reply = try await greeter.sayHello(.with { $0.name = "Ada" })
/// }
/// ```
///
/// A call matches as the replay server matches it (sessions aside): its path, its metadata where
/// `matchedHeaders` asks, and its request messages (as JSON by value with a ``/Tapedeck/ProtoSchema`` in
/// the options). The recorded initial metadata, messages, trailing metadata, status and details
/// come back exactly; a call nothing matches fails with `RPCError` code `.unimplemented` and the
/// server's diagnosis as its message. A call is matched once the client has written all its
/// request messages, except a chat: a call whose recording shows its client waiting for answers
/// between its messages is played as the client writes, by the replay server's rules.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public final class CassetteGRPCTransport: ClientTransport {
    /// Messages are handed to the client as byte arrays.
    public typealias Bytes = [UInt8]

    /// The player holding the cassette and the playback positions.
    package let player: Player
    /// The recorded chats (calls whose clients waited for answers), by method and path.
    private let chats: [String: [RecordedChat]]
    private let clock: any Clock<Duration>
    /// Opened by ``connect()``: calls wait for it, as grpc-swift's own transports queue them.
    private let connected = Gate()
    private let shutdown = Gate()

    /// Loads a cassette file; `options.latency` delays answers as on the replay server.
    public convenience init(cassette file: URL, options: PlaybackOptions = PlaybackOptions(), stubs: [Stub] = [],
                            codec: CassetteCodec = CassetteCodec(), clock: any Clock<Duration> = ContinuousClock()) throws {
        self.init(cassette: try codec.load(file), name: file.path, options: options, stubs: stubs, clock: clock)
    }

    /// Replays a cassette already in memory (an empty one, `Cassette()`, to serve stubs only).
    public convenience init(cassette: Cassette, name: String = "cassette", options: PlaybackOptions = PlaybackOptions(),
                            stubs: [Stub] = [], clock: any Clock<Duration> = ContinuousClock()) {
        self.init(player: Player(cassette: cassette, name: name, options: options, stubs: stubs), clock: clock)
    }

    /// Plays on a player another connector holds (a test cassette's), sharing its positions.
    package init(player: Player, clock: any Clock<Duration> = ContinuousClock()) {
        self.player = player
        self.clock = clock
        chats = RecordedChat.index(player.interactions)
    }

    /// Retries are not throttled: nothing here fails for a retry to help.
    public var retryThrottle: RetryThrottle? { nil }

    /// Nothing to connect: lets the calls waiting for it go, then runs until
    /// ``beginGracefulShutdown()``, as a transport's connections do. `GRPCClient` calls it.
    public func connect() async throws {
        connected.open()
        await shutdown.wait()
    }

    /// Lets ``connect()`` return.
    public func beginGracefulShutdown() {
        shutdown.open()
    }

    /// No per-method configuration: the client's defaults apply.
    public func config(forMethod descriptor: MethodDescriptor) -> MethodConfig? { nil }

    /// Opens a call: the client writes its request, and once it has finished the recorded answer
    /// is played into the stream it reads. A method with recorded chats (calls whose clients waited
    /// for answers between their messages) is played as the client writes.
    public func withStream<T: Sendable>(descriptor: MethodDescriptor, options: CallOptions,
                                        _ closure: (_ stream: RPCStream<Inbound, Outbound>, _ context: ClientContext) async throws -> T)
        async throws -> T {
        // A call made before connect() waits for it, as with grpc-swift's transports: answered at
        // once, it could otherwise end `withGRPCClient`'s body before the client ran, which
        // grpc-swift reports as `clientIsStopped`.
        await connected.wait()
        let call = ReplayedCall(descriptor: descriptor, timeout: options.timeout, player: player, clock: clock)
        if let candidates = chats[RecordedChat.key(method: "POST", path: "/" + descriptor.fullyQualifiedMethod)] {
            return try await withInProcessStream(descriptor: descriptor, peer: "in-process:tapedeck", closure) { response in
                ChatWriter(call: call, candidates: candidates, response: response)
            }
        }
        return try await withAnsweredStream(descriptor: descriptor, peer: "in-process:tapedeck", closure) { metadata, messages, response in
            try await call.send(call.play(call.cassetteRequest(metadata: metadata, messages: messages)), into: response)
        }
    }

    /// The calls this transport received that fit `pattern`, oldest first: what a test asserts its
    /// client sent. A call answered whole is there once it is played; a chat (answered as its
    /// messages come) once its client ended or cancelled it, with every message it wrote.
    public func verify(_ pattern: RequestPattern) -> [CassetteRequest] {
        player.stubs.verify(pattern)
    }

    /// Puts playback and stub scenarios back to the start.
    public func reset() {
        player.reset()
    }
}

/// Runs `closure` on a call whose request is collected whole and whose response `answer` writes,
/// once the client has finished writing: the stream both in-process transports give a client.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
func withAnsweredStream<Bytes: GRPCContiguousBytes & Sendable, T: Sendable>(
    descriptor: MethodDescriptor, peer: String,
    _ closure: (RPCStream<RPCAsyncSequence<RPCResponsePart<Bytes>, any Error>, RPCWriter<RPCRequestPart<Bytes>>.Closable>, ClientContext) async throws -> T,
    answer: @escaping @Sendable (Metadata, [GRPCMessage], AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation) async throws -> Void
) async throws -> T {
    try await withInProcessStream(descriptor: descriptor, peer: peer, closure) { response in
        RequestWriter<Bytes>(response: response) { metadata, messages in
            try await answer(metadata, messages, response)
        }
    }
}

/// Runs `closure` on a call whose request parts go to the writer `makeWriter` gives, which puts
/// the answer into the response it is handed; the response ends with the call at the latest.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
func withInProcessStream<Bytes: GRPCContiguousBytes & Sendable, T: Sendable, Writer: ClosableRPCWriterProtocol<RPCRequestPart<Bytes>>>(
    descriptor: MethodDescriptor, peer: String,
    _ closure: (RPCStream<RPCAsyncSequence<RPCResponsePart<Bytes>, any Error>, RPCWriter<RPCRequestPart<Bytes>>.Closable>, ClientContext) async throws -> T,
    makeWriter: (AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation) -> Writer
) async throws -> T {
    let response = AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.makeStream()
    defer { response.continuation.finish() }
    let stream = RPCStream(descriptor: descriptor, inbound: RPCAsyncSequence(wrapping: response.stream),
                           outbound: RPCWriter.Closable(wrapping: makeWriter(response.continuation)))
    return try await closure(stream, ClientContext(descriptor: descriptor, remotePeer: peer, localPeer: peer))
}

/// The client's side of a call's request: collects its metadata and messages and, once the
/// client has finished writing, has the call answered into the response stream (then finished).
/// The answer runs in the client's `finish()`: no task of its own.
final class RequestWriter<Bytes: GRPCContiguousBytes & Sendable>: ClosableRPCWriterProtocol, Sendable {
    typealias Answer = @Sendable (_ metadata: Metadata, _ messages: [GRPCMessage]) async throws -> Void

    private let request = Locked((metadata: Metadata(), messages: [GRPCMessage]()))
    private let response: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation
    private let answer: Answer

    init(response: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation, answer: @escaping Answer) {
        self.response = response
        self.answer = answer
    }

    func write(_ element: RPCRequestPart<Bytes>) async throws {
        request.withLock { request in
            switch element {
            case .metadata(let more): request.metadata.add(contentsOf: more)
            case .message(let bytes): request.messages.append(GRPCMessage(bytes: bytes.withUnsafeBytes { Data($0) }, compressed: false))
            }
        }
    }

    func write(contentsOf elements: some Sequence<RPCRequestPart<Bytes>>) async throws {
        for element in elements { try await write(element) }
    }

    func finish() async {
        let (metadata, messages) = request.withLock { $0 }
        do {
            try await answer(metadata, messages)
            response.finish()
        } catch {
            response.finish(throwing: error)
        }
    }

    /// The client gave up on its request: nothing is answered.
    func finish(throwing error: any Error) async {
        response.finish(throwing: error)
    }
}

/// Opened once; its waiters go then, and at once after.
final class Gate: Sendable {
    private let state = Locked((isOpen: false, waiters: [CheckedContinuation<Void, Never>]()))

    func wait() async {
        if state.withLock({ $0.isOpen }) { return }
        await withCheckedContinuation { waiter in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(waiter) }
                return state.isOpen
            }
            if isOpen { waiter.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
