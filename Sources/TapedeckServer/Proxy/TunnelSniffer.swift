import NIOCore
import NIOSSL
import TapedeckCore

/// Looks at the first bytes inside a `CONNECT` tunnel: a TLS ClientHello gets TLS interception
/// with a leaf certificate for the host, anything else is served as plain HTTP (some clients,
/// such as AsyncHTTPClient, tunnel plain http through CONNECT too).
final class TunnelSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let sslContext: NIOSSLContext
    private let host: String
    private let port: Int
    private let front: any Responder
    private let configuration: ServerConfiguration
    private var decided = false

    init(sslContext: NIOSSLContext, host: String, port: Int, front: any Responder, configuration: ServerConfiguration) {
        self.sslContext = sslContext
        self.host = host
        self.port = port
        self.front = front
        self.configuration = configuration
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !decided else {
            context.fireChannelRead(data)
            return
        }
        let bytes = unwrapInboundIn(data)
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return }
        decided = true
        let isTLS = first == 0x16
        let scheme = isTLS ? "https" : "http"
        let origin = "\(scheme)://" + RequestTarget.authority(scheme: scheme, host: host, port: port)
        do {
            try ServerPipeline.addTunnelHandlers(context.pipeline.syncOperations, after: self, tls: isTLS ? sslContext : nil,
                                                 origin: origin, front: front, configuration: configuration)
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }
}
