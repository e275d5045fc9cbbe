@_spi(Internals) import TapedeckCore
import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The local certificate authority used for TLS interception: created on first need in
/// `$TAPEDECK_HOME` (default `~/.tapedeck`, folder 0700, key 0600), unique to the machine;
/// mints short-lived leaf certificates per host and caches them.
package final class CertificateAuthority: Sendable {
    /// The folder holding `ca.pem` and `ca-key.pem`.
    package let home: URL
    private let state = Locked<State>(State())

    private struct State {
        var loaded: LoadedAuthority?
        /// Minted contexts by host, for at most ``CertificateAuthority/hostCapacity`` hosts (least recently used forgotten).
        var contexts = LRUCache<String, NIOSSLContext>(capacity: CertificateAuthority.hostCapacity)
    }

    private struct LoadedAuthority: @unchecked Sendable {
        let certificate: Certificate
        let key: P256.Signing.PrivateKey
        let pem: String
    }

    /// Creates an authority stored in `home`; nothing is read or written until first need.
    package init(home: URL) {
        self.home = home
    }

    /// `$TAPEDECK_HOME`, or `~/.tapedeck` with `~` read as a shell reads it: `$HOME`, else the
    /// account's home folder. (Foundation's home folder on Linux is the account's even when `HOME`
    /// says otherwise, as in a sandboxed or containerised test run.)
    package static func defaultHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["TAPEDECK_HOME"], !home.isEmpty { return URL(filePath: home, directoryHint: .isDirectory) }
        let user = environment["HOME"].flatMap { $0.isEmpty ? nil : URL(filePath: $0, directoryHint: .isDirectory) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return user.appending(path: ".tapedeck", directoryHint: .isDirectory)
    }

    /// The CA certificate file.
    package var certificateFile: URL { home.appending(path: "ca.pem") }
    /// The CA private key file, readable by its owner only.
    package var keyFile: URL { home.appending(path: "ca-key.pem") }

    /// Creates the CA if it does not exist yet; returns whether it was created now.
    @discardableResult
    package func initialize() throws(AuthorityError) -> Bool {
        let existed = FileManager.default.fileExists(atPath: certificateFile.path)
        _ = try loaded()
        return !existed
    }

    /// The CA certificate in PEM, creating the CA on first need.
    package func certificatePEM() throws(AuthorityError) -> String { try loaded().pem }

    /// The most hosts whose certificates are kept at once: 1,000.
    package static let hostCapacity = 1000

    /// A TLS server context presenting a leaf certificate for `host`, minted once and cached.
    package func serverContext(for host: String) throws(AuthorityError) -> NIOSSLContext {
        let key = host.lowercased()
        if let cached = state.withLock({ $0.contexts.peek(key) }) { return cached }
        let authority = try loaded()
        let context: NIOSSLContext
        do {
            let leafKey = P256.Signing.PrivateKey()
            let leaf = try Self.leafCertificate(for: key, key: leafKey, authority: authority)
            let chain = try [leaf, authority.certificate].map { certificate in
                try NIOSSLCertificate(bytes: Array(certificate.serializeAsPEM().pemString.utf8), format: .pem)
            }
            let privateKey = try NIOSSLPrivateKey(bytes: Array(leafKey.pemRepresentation.utf8), format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
            // Either HTTP version inside the tunnel: the client's ALPN chooses (ServerPipeline.addTunnelHandlers).
            configuration.applicationProtocols = ["h2", "http/1.1"]
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw AuthorityError(file: home.path, message: "cannot mint a certificate for \(host): \(error)")
        }
        return state.withLock { state in
            if let existing = state.contexts.peek(key) { return existing }
            state.contexts.set(context, for: key)
            return context
        }
    }

    private func loaded() throws(AuthorityError) -> LoadedAuthority {
        // Creation is serialized by the lock so concurrent first CONNECTs make one CA.
        let result: Result<LoadedAuthority, AuthorityError> = state.withLock { state in
            if let loaded = state.loaded { return .success(loaded) }
            do {
                let loaded = try loadOrCreate()
                state.loaded = loaded
                return .success(loaded)
            } catch let error as AuthorityError {
                return .failure(error)
            } catch {
                return .failure(AuthorityError(file: home.path, message: "\(error)"))
            }
        }
        return try result.get()
    }

    private func loadOrCreate() throws -> LoadedAuthority {
        let manager = FileManager.default
        if manager.fileExists(atPath: certificateFile.path) {
            try KeyFilePermissions.check(keyFile)
            do {
                let pem = try String(contentsOf: certificateFile, encoding: .utf8)
                let keyPEM = try String(contentsOf: keyFile, encoding: .utf8)
                return LoadedAuthority(certificate: try Certificate(pemEncoded: pem),
                                       key: try P256.Signing.PrivateKey(pemRepresentation: keyPEM), pem: pem)
            } catch {
                throw AuthorityError(file: certificateFile.path, message: "cannot read the CA: \(error)")
            }
        }
        do {
            try manager.createDirectory(at: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: home.path)
        } catch {
            throw AuthorityError(file: home.path, message: "cannot create the folder: \(error)")
        }
        let key = P256.Signing.PrivateKey()
        let certificate = try Self.authorityCertificate(key: key)
        let pem = try certificate.serializeAsPEM().pemString + "\n"
        guard manager.createFile(atPath: keyFile.path, contents: Data(key.pemRepresentation.utf8),
                                 attributes: [.posixPermissions: 0o600]) else {
            throw AuthorityError(file: keyFile.path, message: "cannot write the CA key")
        }
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        guard manager.createFile(atPath: certificateFile.path, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o644]) else {
            throw AuthorityError(file: certificateFile.path, message: "cannot write the CA certificate")
        }
        return LoadedAuthority(certificate: certificate, key: key, pem: pem)
    }

    private static func authorityCertificate(key: P256.Signing.PrivateKey) throws -> Certificate {
        let hostName = ProcessInfo.processInfo.hostName
        let name = try DistinguishedName {
            CommonName("Tapedeck local CA (\(hostName))")
            OrganizationName("Tapedeck")
        }
        let publicKey = Certificate.PublicKey(key.publicKey)
        let now = Date()
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
    }

    private static func leafCertificate(for host: String, key: P256.Signing.PrivateKey,
                                        authority: LoadedAuthority) throws -> Certificate {
        let publicKey = Certificate.PublicKey(key.publicKey)
        let alternativeName: GeneralName = IPAddressBytes(host).map { .ipAddress(ASN1OctetString(contentBytes: $0[...])) }
            ?? .dnsName(host)
        let authorityKeyID = try authority.certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        let now = Date()
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(7 * 86400),
            issuer: authority.certificate.subject,
            subject: try DistinguishedName { CommonName(String(host.prefix(64))) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([alternativeName])
                SubjectKeyIdentifier(hash: publicKey)
                AuthorityKeyIdentifier(keyIdentifier: authorityKeyID)
            },
            issuerPrivateKey: Certificate.PrivateKey(authority.key))
    }
}

/// The bytes of an IPv4 or IPv6 address written as text, or nil for a DNS name.
func IPAddressBytes(_ text: String) -> [UInt8]? {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
    return nil
}

/// The CA could not be created, read or used; names the file.
package struct AuthorityError: Error, CustomStringConvertible, Sendable {
    /// The file or folder involved.
    package let file: String
    /// What went wrong.
    package let message: String

    package var description: String { "certificate authority \(file): \(message)" }
}
