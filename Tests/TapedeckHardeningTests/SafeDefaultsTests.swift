import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing
@testable import TapedeckServer

/// Safe defaults: loopback binding, proxy authentication, `--no-admin`, CA key permissions,
/// and control headers kept inside the cassette folder.
@Suite struct SafeDefaultsTests {
    private let example = HardeningFixtures.exampleCassette.path
    private let plaintext = "GET http://api.example.test/plaintext?name=Shawn HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n"

    @Test func proxyAuthAnswers407WithoutValidCredentialsAndServesWithThem() async throws {
        let server = try TapedeckProcess(["replay", "--port", "0", "--proxy-auth", "alice:s3cret", example])
        defer { server.stop() }
        let port = try server.waitUntilListening()

        let missing = try await RawSocket.exchange(port: port, plaintext + "\r\n")
        #expect(missing.data.httpStatus == 407)
        #expect(String(decoding: missing.data, as: UTF8.self).contains("Proxy-Authenticate: Basic realm=\"tapedeck\""))

        let wrong = Data("alice:wrong".utf8).base64EncodedString()
        let refused = try await RawSocket.exchange(port: port, plaintext + "Proxy-Authorization: Basic \(wrong)\r\n\r\n")
        #expect(refused.data.httpStatus == 407)

        let right = Data("alice:s3cret".utf8).base64EncodedString()
        let served = try await RawSocket.exchange(port: port, plaintext + "Proxy-Authorization: basic \(right)\r\n\r\n")
        #expect(served.data.httpStatus == 200)
        #expect(String(decoding: served.data, as: UTF8.self).hasSuffix("Hello Shawn!"))
    }

    @Test func proxyAuthKeepsTheConnectionForTheNextRequest() async throws {
        let server = try TapedeckProcess(["replay", "--port", "0", "--proxy-auth", "alice:s3cret", example])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        let right = Data("alice:s3cret".utf8).base64EncodedString()
        let socket = try RawSocket(port: port)
        let keepAlive = "GET http://api.example.test/plaintext?name=Shawn HTTP/1.1\r\nHost: api.example.test\r\n"
        socket.send(keepAlive + "Content-Length: 5\r\n\r\nhello" + keepAlive + "Proxy-Authorization: Basic \(right)\r\nConnection: close\r\n\r\n")
        let answer = await socket.read()
        let text = String(decoding: answer.data, as: UTF8.self)
        #expect(answer.data.httpStatus == 407)
        #expect(text.contains("HTTP/1.1 200 OK"))
    }

    @Test func proxyAuthorizationIsNeverRecorded() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LocalUpstream.start()
        let cassette = directory.appending(path: "auth.json")
        let server = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0",
                                          "--proxy-auth", "bob:hunter2", "--no-default-redactions"])
        let port = try server.waitUntilListening()
        let credentials = Data("bob:hunter2".utf8).base64EncodedString()
        let refused = try await RawSocket.exchange(port: port, "GET /secret HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let answered = try await RawSocket.exchange(
            port: port, "GET /secret HTTP/1.1\r\nHost: x\r\nProxy-Authorization: Basic \(credentials)\r\nConnection: close\r\n\r\n")
        server.signal(SIGINT)
        #expect(server.waitForExit() == 0)
        _ = server.stop()
        await upstream.stop()
        #expect(refused.data.httpStatus == 407)
        #expect(answered.data.httpStatus == 200)
        let text = try String(contentsOf: cassette, encoding: .utf8)
        #expect(!text.lowercased().contains("proxy-authorization"))
        #expect(!text.contains(credentials))
        #expect(try CassetteCodec().load(cassette).interactions.count == 1)
    }

    @Test func malformedProxyAuthIsBadUsage() throws {
        let server = try TapedeckProcess(["replay", "--port", "0", "--proxy-auth", "no-colon-here", example])
        #expect(server.waitForExit() == 2)
        #expect(server.stop().contains("--proxy-auth: proxy credentials must be USER:PASSWORD"))
    }

    @Test func noAdminServesAdminPathsLikeAnyOtherRequest() async throws {
        let health = "GET /__tapedeck/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        let withAdmin = try TapedeckProcess(["replay", "--port", "0", example])
        defer { withAdmin.stop() }
        let adminAnswer = try await RawSocket.exchange(port: try withAdmin.waitUntilListening(), health)
        #expect(adminAnswer.data.httpStatus == 200)

        let without = try TapedeckProcess(["replay", "--port", "0", "--no-admin", example])
        defer { without.stop() }
        let plainAnswer = try await RawSocket.exchange(port: try without.waitUntilListening(), health)
        #expect(plainAnswer.data.httpStatus == 599)
        #expect(String(decoding: plainAnswer.data, as: UTF8.self).contains("no-match"))
    }

    @Test func loopbackBindingPrintsNoWarning() async throws {
        let server = try TapedeckProcess(["replay", "--port", "0", example])
        let port = try server.waitUntilListening()
        _ = try await RawSocket.exchange(port: port, "GET /__tapedeck/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(!server.stop().contains("warning"))
    }

    @Test func bindingBeyondLoopbackPrintsAWarningFirst() throws {
        // 192.0.2.1 (TEST-NET-1) is not on this machine: the bind fails, after the warning, and nothing is exposed.
        let server = try TapedeckProcess(["replay", "--host", "192.0.2.1", "--port", "0", example])
        #expect(server.waitForExit() == 1)
        let errors = server.stop()
        #expect(errors.contains("warning: --host 192.0.2.1 exposes this server beyond this machine"))
    }

    @Test(arguments: ["0.0.0.0", "::", "192.168.1.20", "example.com"])
    func nonLoopbackAddressesAreWarnedAbout(host: String) {
        #expect(!BindAddress.isLoopback(host))
    }

    @Test(arguments: ["127.0.0.1", "127.1.2.3", "localhost", "::1"])
    func loopbackAddressesAreNot(host: String) {
        #expect(BindAddress.isLoopback(host))
    }

    @Test func authorityFolderIsPrivateAndAnOpenKeyIsRefusedWithTheFix() throws {
        let home = try HardeningFixtures.temporaryDirectory().appending(path: "ca-home")
        defer { try? FileManager.default.removeItem(at: home.deletingLastPathComponent()) }
        let authority = CertificateAuthority(home: home)
        #expect(try authority.initialize())
        #expect(try permissions(home) == 0o700)
        #expect(try permissions(authority.keyFile) == 0o600)

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: authority.keyFile.path)
        do {
            _ = try CertificateAuthority(home: home).certificatePEM()
            Issue.record("a CA key readable by others was accepted")
        } catch {
            #expect(error.description.contains("chmod 600 '\(authority.keyFile.path)'"))
        }
        let command = try TapedeckProcess(["ca", "export"], environment: ["TAPEDECK_HOME": home.path])
        #expect(command.waitForExit() == 1)
        #expect(command.stop().contains("chmod 600"))

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: authority.keyFile.path)
        #expect(try CertificateAuthority(home: home).certificatePEM().contains("BEGIN CERTIFICATE"))
    }

    @Test func controlHeadersCannotReadFilesOutsideTheCassetteFolder() async throws {
        let root = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appending(path: "cassettes", directoryHint: .isDirectory)
        let outside = root.appending(path: "outside", directoryHint: .isDirectory)
        for directory in [folder, outside] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        try FileManager.default.copyItem(at: HardeningFixtures.exampleCassette, to: folder.appending(path: "inside.json"))
        try FileManager.default.copyItem(at: HardeningFixtures.exampleCassette, to: outside.appending(path: "secret.json"))
        try FileManager.default.createSymbolicLink(at: folder.appending(path: "escape.json"), withDestinationURL: outside.appending(path: "secret.json"))
        try FileManager.default.createSymbolicLink(atPath: folder.appending(path: "alias.json").path, withDestinationPath: "inside.json")
        try FileManager.default.createSymbolicLink(at: folder.appending(path: "up.json"), withDestinationURL: URL(filePath: "/etc/hostname"))

        let server = try TapedeckProcess(["replay", "--port", "0", "--cassette-dir", folder.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        func ask(_ name: String) async throws -> (status: Int?, text: String) {
            let answer = try await RawSocket.exchange(
                port: port, "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\nTapedeck-Cassette: \(name)\r\nConnection: close\r\n\r\n")
            return (answer.data.httpStatus, String(decoding: answer.data, as: UTF8.self))
        }
        #expect(try await ask("inside").status == 200)
        #expect(try await ask("alias").status == 200)
        let escape = try await ask("escape")
        #expect(escape.status == 400)
        #expect(escape.text.contains("resolves outside the cassette folder"))
        #expect(try await ask("up").status == 400)
        #expect(try await ask("../outside/secret").status == 400)
        #expect(try await ask("%2e%2e%2foutside%2fsecret").status == 400)
    }

    private func permissions(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int ?? -1) & 0o777
    }
}
