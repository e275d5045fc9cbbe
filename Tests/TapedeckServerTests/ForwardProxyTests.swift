import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCore
import TapedeckServer
import TapedeckTestSupport
import Testing

/// The replay server as a forward proxy: absolute-form http and CONNECT with TLS interception.
@Suite struct ForwardProxyTests {
    private func secureFile() throws -> (URL, URL) {
        let directory = try Fixtures.temporaryDirectory()
        return (directory, try Fixtures.writeCassette(Fixtures.secureCassette, named: "secure.json", in: directory))
    }

    @Test(.requires(.curl)) func curlReplaysHTTPSThroughTheProxyTrustingTheLocalCA() async throws {
        let (directory, file) = try secureFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let caFile = directory.appending(path: "ca.pem")
            let fetched = try await Curl.run(["--output", caFile.path, harness.base + "/__tapedeck/ca.pem"])
            #expect(fetched.status == 0)
            let result = try await Curl.run(["--proxy", harness.base, "--cacert", caFile.path, "https://secure.example.test/hello?lang=en"])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.text == "hello over tls")
            let posted = try await Curl.run(["--proxy", harness.base, "--cacert", caFile.path, "-H", "Content-Type: application/json",
                                       "--data", #"{"nonce": 1, "name": "x"}"#, "https://secure.example.test:8443/items"])
            #expect(posted.text == #"{"created":true}"#)
            let wrongPort = try await Curl.run(["--proxy", harness.base, "--cacert", caFile.path, "--write-out", "%{http_code}",
                                          "--output", "/dev/null", "https://secure.example.test:9443/hello?lang=en"])
            #expect(wrongPort.text == "599")
            let untrusted = try await Curl.run(["--proxy", harness.base, "https://secure.example.test/hello?lang=en"])
            #expect(untrusted.status != 0)
        }
    }

    @Test func urlSessionReplaysHTTPThroughTheProxy() async throws {
        let probe = try TapedeckBinary.locate().deletingLastPathComponent().appending(path: "URLSessionProxyProbe")
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let result = try await Subprocess.run(executable: probe.path, arguments: ["http://api.example.test/image.png"],
                                                  environment: ["http_proxy": harness.base, "no_proxy": ""])
            let lines = result.text.split(separator: "\n")
            #expect(result.status == 0, "\(result.error)")
            #expect(lines.first == "200")
            let png = try CassetteCodec().load(Fixtures.exampleCassette).interactions[4].response.body.data
            #expect(lines.count == 2 && Data(base64Encoded: String(lines[1])) == png)
            let journal = harness.responder.journal.document().entries
            #expect(journal.last?.url == "http://api.example.test/image.png")
        }
    }

    @Test func asyncHTTPClientReplaysHTTPAndHTTPSThroughTheProxy() async throws {
        let (directory, file) = try secureFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ReplayHarness.run(files: [file, Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let configuration = try Clients.throughProxy(port: harness.server.port,
                                                         trusting: harness.responder.authority.certificatePEM())
            try await Clients.withHTTPClient(configuration) { (client: HTTPClient) async throws in
                let secure = try await Clients.send(client, .GET, "https://secure.example.test/hello?lang=en")
                #expect(secure.status == 200)
                #expect(String(decoding: secure.body, as: UTF8.self) == "hello over tls")
                let plain = try await Clients.send(client, .GET, "http://api.example.test/plaintext?name=Shawn")
                #expect(String(decoding: plain.body, as: UTF8.self) == "Hello Shawn!")
                let wrongScheme = try await Clients.send(client, .GET, "https://api.example.test/plaintext?name=Shawn")
                #expect(wrongScheme.status == 599)
            }
            let journal = harness.responder.journal.document().entries.map(\.url)
            #expect(journal.contains("https://secure.example.test/hello?lang=en"))
            #expect(journal.contains("http://api.example.test/plaintext?name=Shawn"))
        }
    }

    @Test func leafCertificatesAreMintedPerHostAndCached() throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let authority = CertificateAuthority(home: home.appending(path: "ca-home"))
        let first = try authority.serverContext(for: "a.example.test")
        let again = try authority.serverContext(for: "A.example.test")
        let other = try authority.serverContext(for: "127.0.0.1")
        #expect(first === again)
        #expect(first !== other)
        let attributes = try FileManager.default.attributesOfItem(atPath: authority.keyFile.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: authority.home.path)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        let reloaded = CertificateAuthority(home: authority.home)
        #expect(try reloaded.certificatePEM() == authority.certificatePEM())
    }

    @Test(.requires(.curl)) func caCertificateIsAcceptedByOpenSSLAsAnAuthority() async throws {
        let (directory, file) = try secureFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let pem = try harness.responder.authority.certificatePEM()
            let caFile = directory.appending(path: "ca.pem")
            try Data(pem.utf8).write(to: caFile)
            // Strict verification, as Python 3.13 and newer OpenSSL use it.
            let result = try await Curl.run(["--proxy", harness.base, "--cacert", caFile.path, "--tlsv1.2", "https://secure.example.test/hello?lang=en"])
            #expect(result.text == "hello over tls")
            let served = try await Curl.run([harness.base + "/__tapedeck/ca.pem"])
            #expect(served.text == pem)
        }
    }
}
