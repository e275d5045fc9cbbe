import NIOCore
import NIOPosix
import NIOSSL

/// Opens a TCP connection to an upstream on a given event loop: no Nagle delay, a connect
/// timeout, TLS (with SNI for host names) when a context is given, then the handlers the caller adds.
enum UpstreamSocket {
    /// Connects to `host:port` on `eventLoop`; `addHandlers` runs on the new channel after TLS.
    static func connect(host: String, port: Int, tls: NIOSSLContext?, timeout: TimeAmount = .seconds(10), on eventLoop: any EventLoop,
                        addHandlers: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void = { _ in })
        -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    if let tls {
                        let serverName = IPAddressBytes(host) == nil ? host : nil
                        try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    try addHandlers(operations)
                }
            }
            .connect(host: host, port: port)
    }
}

/// How the recording proxy opens a connection to an upstream: a socket (``socket``), or in tests a
/// channel the test holds (an `EmbeddedChannel` standing for the live service), so a recording
/// runs without sockets, on the embedded clock.
package struct UpstreamDialer: Sendable {
    /// Opens a connection to `origin` on `eventLoop` (with `tls` when given, giving up after `timeout`)
    /// and adds the caller's handlers to it.
    package typealias Dial = @Sendable (_ origin: UpstreamOrigin, _ tls: NIOSSLContext?, _ timeout: TimeAmount,
                                        _ eventLoop: any EventLoop,
                                        _ addHandlers: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void)
        -> EventLoopFuture<any Channel>

    /// Opens the connection.
    package let dial: Dial

    package init(_ dial: @escaping Dial) {
        self.dial = dial
    }

    /// A TCP connection, with TLS (and SNI for names) when asked.
    package static let socket = UpstreamDialer { origin, tls, timeout, eventLoop, addHandlers in
        UpstreamSocket.connect(host: origin.host, port: origin.port, tls: tls, timeout: timeout, on: eventLoop, addHandlers: addHandlers)
    }
}
