import Foundation
import NIOSSL

/// How the recording proxy checks upstream certificates: the system trust store, extra roots,
/// or no verification at all.
package struct UpstreamTrust: Sendable {
    /// Extra root certificates (PEM files) trusted besides the system store.
    package var extraRoots: [URL]
    /// Whether certificates are not verified at all.
    package var insecure: Bool

    /// Creates a trust setting; the default trusts the system store only.
    package init(extraRoots: [URL] = [], insecure: Bool = false) {
        self.extraRoots = extraRoots
        self.insecure = insecure
    }

    /// The TLS configuration for upstream connections.
    package func tlsConfiguration() throws(SettingsError) -> TLSConfiguration {
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
                throw SettingsError(message: "extra root certificate \(file.path): \(error)")
            }
        }
        return tls
    }

    /// The TLS context upstream connections share, offering `alpn` (nothing by default).
    func sslContext(alpn: [String] = []) throws(SettingsError) -> NIOSSLContext {
        var configuration = try tlsConfiguration()
        configuration.applicationProtocols = alpn
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SettingsError(message: "cannot set up TLS for upstream connections: \(error)")
        }
    }
}
