#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
@_spi(Internals) import TapedeckCore

/// The server could not listen where it was asked to: the reason in a user's words for the
/// common causes (the port taken, a privileged port, an address the machine does not have),
/// the system's text otherwise.
package struct ListenError: Error, CustomStringConvertible {
    /// The address asked for.
    package let host: String
    /// The port asked for.
    package let port: Int
    /// What binding threw.
    package let underlying: any Error

    package var description: String {
        "cannot listen on \(RequestTarget.urlHost(host)):\(port): \(reason)"
    }

    private var reason: String {
        switch (underlying as? IOError)?.errnoCode {
        case EADDRINUSE:
            return "the port is in use (by another server, or a tapedeck still running); choose another with --port, or --port 0 for a free one"
        case EACCES:
            return "permission denied (a port below 1024 needs privileges); choose another with --port"
        case EADDRNOTAVAIL:
            return "this machine has no such address; --host takes one of its own, such as 127.0.0.1"
        default:
            return "\(underlying)"
        }
    }
}
