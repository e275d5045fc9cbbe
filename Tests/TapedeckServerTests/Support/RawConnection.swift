import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 for sending bytes no HTTP client would send.
final class RawConnection: @unchecked Sendable {
    private let socket: Int32

    /// Connects to a port on 127.0.0.1, with reads bounded by `timeout` seconds.
    init(port: Int, timeout: Int = 10) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw FixtureError(message: "socket() failed") }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(socket); throw FixtureError(message: "connect to port \(port) failed") }
    }

    deinit { close(socket) }

    /// Ends the connection now, both ways, whatever still holds this object.
    func hangUp() { shutdown(socket, Int32(SHUT_RDWR)) }

    /// Sends bytes.
    func send(_ text: String) { send(Data(text.utf8)) }

    /// Sends bytes.
    func send(_ data: Data) {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = Glibc.send(socket, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    /// Reads on its own thread until the peer closes, the timeout passes, or `until` is satisfied.
    func read(until done: @escaping @Sendable (Data) -> Bool = { _ in false }) async -> (data: Data, closed: Bool) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.readBlocking(until: done)) }
        }
    }

    private func readBlocking(until done: (Data) -> Bool) -> (data: Data, closed: Bool) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { return (received, true) }
            if count < 0 { return (received, false) }
            received.append(contentsOf: buffer[0..<count])
            if done(received) { return (received, false) }
        }
    }
}

extension Data {
    /// How often a text occurs in these bytes.
    func occurrences(of text: String) -> Int {
        let needle = Data(text.utf8)
        var count = 0
        var start = startIndex
        while let range = self.range(of: needle, in: start..<endIndex) {
            count += 1
            start = range.upperBound
        }
        return count
    }
}

extension Data {
    /// These bytes with every occurrence of `old` replaced by `new`.
    func replacing(_ old: Data, with new: Data) -> Data {
        var result = Data()
        var start = startIndex
        while let range = self.range(of: old, in: start..<endIndex) {
            result.append(self[start..<range.lowerBound])
            result.append(new)
            start = range.upperBound
        }
        result.append(self[start..<endIndex])
        return result
    }
}
