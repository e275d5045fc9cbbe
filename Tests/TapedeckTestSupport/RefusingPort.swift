import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port that refuses every connection for as long as this value lives: a socket bound
/// to it that never listens. Unlike a port whose server was stopped, no other test running in
/// parallel can start listening on it meanwhile.
public final class RefusingPort: @unchecked Sendable {
    /// The port.
    public let port: Int
    private let socketDescriptor: Int32

    /// Binds a free port on 127.0.0.1 without listening.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw RawSocketError(message: "cannot bind a refusing port: errno \(errno)")
        }
        socketDescriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socketDescriptor) }
}
