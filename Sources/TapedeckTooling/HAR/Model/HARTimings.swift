import Foundation

/// The phases of an exchange in milliseconds, -1 when a phase does not apply.
public struct HARTimings: Sendable, Hashable, Codable {
    /// Waiting for a connection.
    public var blocked: Double?
    /// Name resolution.
    public var dns: Double?
    /// Connecting, including TLS.
    public var connect: Double?
    /// Sending the request.
    public var send: Double?
    /// Waiting for the first response byte.
    public var wait: Double?
    /// Reading the response.
    public var receive: Double?
    /// The TLS part of `connect`.
    public var ssl: Double?

    /// Creates timings.
    public init(blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double, wait: Double,
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
