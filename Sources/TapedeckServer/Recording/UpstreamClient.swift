import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// How the recording proxy reaches the live service: AsyncHTTPClient with redirects passed
/// back (never followed), decompression off, pooled connections and the chosen trust.
public struct UpstreamTrust: Sendable {
    /// Extra root certificates (PEM files) trusted besides the system store.
    public var extraRoots: [URL]
    /// Whether certificates are not verified at all.
    public var insecure: Bool

    /// Creates a trust setting; the default trusts the system store only.
    public init(extraRoots: [URL] = [], insecure: Bool = false) {
        self.extraRoots = extraRoots
        self.insecure = insecure
    }

    /// The TLS configuration for upstream connections.
    public func tlsConfiguration() throws(SettingsError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if insecure { tls.certificateVerification = .none }
        for file in extraRoots {
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(file.path)
                guard !certificates.isEmpty else { throw SettingsError(message: "no certificate in \(file.path)") }
                tls.additionalTrustRoots.append(.certificates(certificates))
            } catch let error as SettingsError {
                throw error
            } catch {
                throw SettingsError(message: "--upstream-ca \(file.path): \(error)")
            }
        }
        return tls
    }
}

/// Builds the pooled upstream client.
enum UpstreamClient {
    /// A client that never follows redirects nor decompresses, with a read timeout.
    static func make(trust: UpstreamTrust, timeout: TimeAmount, group: any EventLoopGroup) throws(SettingsError) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: try trust.tlsConfiguration(),
            redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(10), read: timeout),
            connectionPool: HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128),
            proxy: nil,
            decompression: .disabled)
        configuration.httpVersion = .http1Only
        return HTTPClient(eventLoopGroup: group, configuration: configuration)
    }
}
