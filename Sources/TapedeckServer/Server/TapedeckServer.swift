import NIOCore
import NIOExtras
import NIOPosix
@_spi(Internals) import TapedeckCore

/// A listening Tapedeck server: binds, serves every connection with a responder, and stops.
package final class TapedeckServer: Sendable {
    /// The configuration in force.
    package let configuration: ServerConfiguration
    /// The port actually bound (the real one when 0 was asked for).
    package let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let ownsGroup: Bool
    /// What the server serves; its inspector's live streams end when the server stops.
    private let mode: any Mode
    /// Tells every connection the server is stopping, and says when they have all closed. Let go
    /// of in ``shutdown()`` while its event loop still runs: its deinit completes a promise there.
    private let quiescing: Locked<ServerQuiescingHelper?>

    private init(configuration: ServerConfiguration, port: Int, channel: any Channel,
                 group: MultiThreadedEventLoopGroup, ownsGroup: Bool, mode: any Mode, quiescing: ServerQuiescingHelper) {
        self.mode = mode
        self.configuration = configuration
        self.port = port
        self.channel = channel
        self.group = group
        self.ownsGroup = ownsGroup
        self.quiescing = Locked(quiescing)
    }

    /// Binds and starts serving `mode`; returns once the socket listens.
    ///
    /// - Throws: ``ListenError`` when the address cannot be bound (a port in use, a privileged
    ///   port, an address this machine does not have).
    package static func start(configuration: ServerConfiguration, mode: any Mode,
                             group: MultiThreadedEventLoopGroup? = nil) async throws(ListenError) -> TapedeckServer {
        let eventLoops = group ?? MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        do {
            let (channel, quiescing) = try await bind(configuration: configuration, front: FrontDoor(mode: mode), on: eventLoops)
            let port = channel.localAddress?.port ?? configuration.port
            return TapedeckServer(configuration: configuration, port: port, channel: channel, group: eventLoops,
                                  ownsGroup: group == nil, mode: mode, quiescing: quiescing)
        } catch {
            if group == nil { try? await eventLoops.shutdownGracefully() }
            throw ListenError(host: configuration.host, port: configuration.port, underlying: error)
        }
    }

    /// Binds the listening socket, with the helper that will drain its connections.
    private static func bind(configuration: ServerConfiguration, front: FrontDoor,
                             on eventLoops: MultiThreadedEventLoopGroup) async throws -> (any Channel, ServerQuiescingHelper) {
        // The listening socket and the drain helper's promise on one loop: after a failed bind the
        // helper is let go on that loop as the group stops, and its deinit completes its promise
        // there at once; on another loop, already stopped, SwiftNIO would refuse the task.
        let loop = eventLoops.next()
        let quiescing = ServerQuiescingHelper(group: loop)
        let channel = try await ServerBootstrap(group: loop, childGroup: eventLoops)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptPause(pause: TapedeckServer.acceptPause))
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: false)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try ServerPipeline.configure(channel: channel, front: front, configuration: configuration)
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        return (channel, quiescing)
    }

    /// How long the server stops accepting after `accept` failed (out of file descriptors, say).
    static let acceptPause = TimeAmount.milliseconds(100)

    /// The base URL clients use, such as `http://127.0.0.1:8080`.
    package var url: String {
        "http://\(RequestTarget.urlHost(configuration.host)):\(port)"
    }

    /// Stops listening and drains: every connection finishes the answer under way, then closes (one
    /// between requests at once, an HTTP/2 connection after `GOAWAY` and its last stream, a
    /// WebSocket conversation with a 1001 close, a byte relay at once, the inspector's live
    /// streams once ended); what is still open after
    /// ``ServerConfiguration/drainTimeout`` is closed. Then releases the threads it created.
    /// Stopping a stopped server does nothing.
    package func shutdown() async throws {
        guard await drain() else { return }
        try? await channel.close()
        if ownsGroup { try await group.shutdownGracefully() }
    }

    /// Whether the server still accepts connections on ``port``.
    package var isListening: Bool { channel.isActive }

    /// Returns once the server no longer listens and every connection was told to finish
    /// (``shutdown()`` closes the listener first). Probing the port instead can reach another
    /// server that was given the same port number since.
    package func stoppedListening() async {
        try? await channel.closeFuture.get()
        // Each connection is told on its own event loop, in a task queued as the listener closed:
        // one more task on every loop runs after those.
        for loop in group.makeIterator() { try? await loop.submit {}.get() }
    }

    /// Tells the connections to finish and waits for them, at most ``ServerConfiguration/drainTimeout``;
    /// false when the server was stopped already.
    private func drain() async -> Bool {
        guard let helper = quiescing.withLock({ helper in
            defer { helper = nil }
            return helper
        }) else { return false }
        mode.admin.inspector?.exchanges.events.closeAll()
        let drained = channel.eventLoop.makePromise(of: Void.self)
        let givingUp = channel.eventLoop.scheduleTask(in: configuration.drainTimeout) { drained.succeed() }
        helper.initiateShutdown(promise: drained)
        try? await drained.futureResult.get()
        givingUp.cancel()
        return true
    }
}
