import NIOCore
import NIOPosix
import TapedeckCore

/// A listening Tapedeck server: binds, serves every connection with a responder, and stops.
package final class TapedeckServer: Sendable {
    /// The configuration in force.
    package let configuration: ServerConfiguration
    /// The port actually bound (the real one when 0 was asked for).
    package let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let ownsGroup: Bool

    private init(configuration: ServerConfiguration, port: Int, channel: any Channel,
                 group: MultiThreadedEventLoopGroup, ownsGroup: Bool) {
        self.configuration = configuration
        self.port = port
        self.channel = channel
        self.group = group
        self.ownsGroup = ownsGroup
    }

    /// Binds and starts serving `mode`; returns once the socket listens.
    package static func start(configuration: ServerConfiguration, mode: any Mode,
                             group: MultiThreadedEventLoopGroup? = nil) async throws -> TapedeckServer {
        let eventLoops = group ?? MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let front = FrontDoor(mode: mode)
        do {
            let channel = try await ServerBootstrap(group: eventLoops)
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
            let port = channel.localAddress?.port ?? configuration.port
            return TapedeckServer(configuration: configuration, port: port, channel: channel, group: eventLoops,
                                  ownsGroup: group == nil)
        } catch {
            if group == nil { try? await eventLoops.shutdownGracefully() }
            throw error
        }
    }

    /// The base URL clients use, such as `http://127.0.0.1:8080`.
    package var url: String {
        "http://\(RequestTarget.urlHost(configuration.host)):\(port)"
    }

    /// Stops listening, closes the connections and releases the threads it created.
    package func shutdown() async throws {
        try? await channel.close()
        if ownsGroup { try await group.shutdownGracefully() }
    }
}
