import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an upstream could not be reached, in words a user can act on: the fix for an untrusted
/// certificate, "connection refused" for a port nobody listens on, instead of SwiftNIO's and
/// BoringSSL's own descriptions.
enum UpstreamFailureText {
    /// A sentence for the 502 answer and the log.
    static func describe(_ error: any Error) -> String {
        if let connection = error as? NIOConnectionError {
            if let dns = connection.dnsAError ?? connection.dnsAAAAError {
                return "the name \(connection.host) could not be resolved (\(dns))"
            }
            let causes = connection.connectionErrors.map { "\($0.target): \(describe($0.error))" }
            return causes.isEmpty ? "no address of \(connection.host):\(connection.port) could be connected to" : causes.joined(separator: "; ")
        }
        if let io = error as? IOError {
            if io.errnoCode == ECONNREFUSED { return "connection refused: nothing listens on that port (is the service running?)" }
            return "\(String(cString: strerror(io.errnoCode))) (errno \(io.errnoCode))"
        }
        let text = "\(error)"
        if error is NIOSSLError || error is BoringSSLError, text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate") {
            return "the upstream's TLS certificate is not trusted; pass --upstream-ca FILE with the CA that signed it, "
                + "or --insecure-upstream to skip the check (\(text))"
        }
        return text
    }
}
