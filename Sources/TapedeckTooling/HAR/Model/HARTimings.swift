import Foundation

/// The phases of an exchange in milliseconds, -1 when a phase does not apply.
package struct HARTimings: Sendable, Hashable, Codable {
    /// Waiting for a connection.
    package var blocked: Double?
    /// Name resolution.
    package var dns: Double?
    /// Connecting, including TLS.
    package var connect: Double?
    /// Sending the request.
    package var send: Double?
    /// Waiting for the first response byte.
    package var wait: Double?
    /// Reading the response.
    package var receive: Double?
    /// The TLS part of `connect`.
    package var ssl: Double?

    /// Creates timings.
    package init(blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double, wait: Double,
                receive: Double, ssl: Double? = -1) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
    }
}
