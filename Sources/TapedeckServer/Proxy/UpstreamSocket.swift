import NIOCore
import NIOSSL
import TapedeckNIO

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
