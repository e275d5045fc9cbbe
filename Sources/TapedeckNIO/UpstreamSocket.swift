import NIOCore
import NIOPosix
import NIOSSL

/// Opens a TCP connection to an upstream on a given event loop: no Nagle delay, a connect
/// timeout, TLS (with SNI for host names) when a context is given, then the handlers the caller adds.
package enum UpstreamSocket {
    /// Connects to `host:port` on `eventLoop`; `addHandlers` runs on the new channel after TLS.
    package static func connect(host: String, port: Int, tls: NIOSSLContext?, timeout: TimeAmount = .seconds(10), on eventLoop: any EventLoop,
                                       addHandlers: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void = { _ in })
        -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    if let tls {
                        let serverName = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil  // SNI names hosts, not addresses
                        try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                    }
                    try addHandlers(operations)
                }
            }
            .connect(host: host, port: port)
    }
}
