import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1, for bytes no HTTP client would send.
public final class RawSocket: @unchecked Sendable {
    private let socket: Int32
    /// The descriptor, for checks without reading.
    public var socketDescriptor: Int32 { socket }

    /// Connects to a port on 127.0.0.1; reads give up after `timeout` seconds (times
    /// ``Deadlines/scale`` under a sanitizer).
    public init(port: Int, timeout: Int = 10) throws {
        // The descriptor stays local until it is connected: once `socket` is set, a throw runs
        // `deinit`, which closes it, and a second close here would close whatever descriptor
        // another test's thread opened under the same number meanwhile (a pipe, whose reader then
        // read another curl's output).
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawSocketError(message: "socket() failed: errno \(errno)") }
        var time = timeval(tv_sec: timeout * Deadlines.scale, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(descriptor)
            throw RawSocketError(message: "connect to 127.0.0.1:\(port) failed: errno \(error)")
        }
        socket = descriptor
    }

    deinit { close(socket) }

    /// Ends the connection now, both ways, whatever still holds this object.
    public func hangUp() { shutdown(socket, Int32(SHUT_RDWR)) }

    /// Sends text.
    public func send(_ text: String) { send(Data(text.utf8)) }

    /// Sends bytes; stops quietly if the peer has gone.
    public func send(_ data: Data) {
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let sent = Glibc.send(socket, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    /// How a read ended.
    public enum Ending: Equatable, Sendable { case closed, timedOut, reset, satisfied }

    /// Reads (blocking) until the peer closes, the timeout passes, or `done` says enough.
    public func readBlocking(until done: (Data) -> Bool = { _ in false }) -> (data: Data, ending: Ending) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { return (received, .closed) }
            if count < 0 { return (received, errno == ECONNRESET ? .reset : .timedOut) }
            received.append(contentsOf: buffer[0..<count])
            if done(received) { return (received, .satisfied) }
        }
    }

    /// Reads on a thread of its own, so the caller's executor is not blocked.
    public func read(until done: @escaping @Sendable (Data) -> Bool = { _ in false }) async -> (data: Data, ending: Ending) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.readBlocking(until: done)) }
        }
    }

    /// Sends a whole `Connection: close` request and reads until the server closes.
    public static func exchange(port: Int, _ request: String, timeout: Int = 10) async throws -> (data: Data, ending: Ending) {
        let socket = try RawSocket(port: port, timeout: timeout)
        socket.send(request)
        return await socket.read()
    }
}

extension RawSocket {
    /// Whether the peer has closed the connection (checked without waiting).
    public func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let count = recv(socketDescriptor, &byte, 1, Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }
}

/// The raw connection could not be made.
public struct RawSocketError: Error, CustomStringConvertible {
    /// What failed, with errno.
    public let message: String
    public var description: String { message }
}
