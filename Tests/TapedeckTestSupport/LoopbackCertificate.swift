import Foundation

/// A self-signed certificate for 127.0.0.1, made by the openssl command line for a test's TLS
/// service (nginx, the Python WebSocket service); the test trusts it by its file.
public enum LoopbackCertificate {
    /// Writes `cert.pem` and `key.pem` into `directory`; openssl runs on a thread of its own, so
    /// its RSA key, seconds on a loaded machine, does not hold a cooperative thread.
    public static func make(in directory: URL) async throws -> (certificate: URL, key: URL) {
        let certificate = directory.appending(path: "cert.pem"), key = directory.appending(path: "key.pem")
        let made = try await ChildProcess.runOnOwnThread(URL(filePath: "/usr/bin/env"), [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", certificate.path,
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "2"])
        guard made.status == 0 else { throw LoopbackCertificateError(output: made.output) }
        return (certificate, key)
    }
}

/// openssl could not make the certificate.
public struct LoopbackCertificateError: Error, CustomStringConvertible {
    /// What openssl printed.
    public let output: String

    public var description: String { "openssl could not make a certificate for 127.0.0.1: \(output)" }
}
