import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `tapedeck replay` and `tapedeck ca` as a user runs them.
@Suite struct CommandLineTests {
    @Test(arguments: [SIGINT, SIGTERM])
    func replayPrintsTheListeningLineServesAndExitsZeroOnSignal(signal: Int32) async throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try TapedeckProcess(["replay", "cassettes/example.json", "--port", "0"], environment: ["TAPEDECK_HOME": home.path])
        let port = try server.waitUntilListening()
        #expect(server.listeningLine == "tapedeck listening on http://127.0.0.1:\(port)")
        let answer = try await Curl.run(["http://127.0.0.1:\(port)/plaintext?name=Shawn"])
        #expect(answer.text == "Hello Shawn!")
        let miss = try await Curl.run(["--write-out", "\n%{http_code}", "http://127.0.0.1:\(port)/plaintext?name=Bob"])
        #expect(miss.text.hasSuffix("\n599"))
        server.signal(signal)
        #expect(server.waitForExit() == 0)
    }

    @Test func brokenCassetteExitsTwoNamingFileAndPlace() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let syntax = try Fixtures.writeCassette("{\"version\": 1,\n  \"interactions\": [\n    {oops}\n]}", named: "syntax.json", in: directory)
        let content = try Fixtures.writeCassette(#"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/"}, "response": {"status": "x"}}]}"#,
                                                 named: "content.json", in: directory)
        let binary = try TapedeckBinary.locate()
        let first = try await Subprocess.run(executable: binary.path, arguments: ["replay", syntax.path, "--port", "0"])
        #expect(first.status == 2)
        #expect(first.error.contains("syntax.json"))
        #expect(first.error.contains("syntax.json:3:"))
        let second = try await Subprocess.run(executable: binary.path, arguments: ["replay", content.path, "--port", "0"])
        #expect(second.status == 2)
        #expect(second.error.contains("content.json"))
        #expect(second.error.contains("interactions[0].response.status"))
        let missing = try await Subprocess.run(executable: binary.path, arguments: ["replay", directory.appending(path: "none.json").path])
        #expect(missing.status == 2)
        #expect(missing.error.contains("none.json"))
    }

    /// A port another server holds is named as such, with what to do, and the command exits 1 and
    /// nothing else. Before, the reason was SwiftNIO's own text (`bind(descriptor:ptr:bytes:):
    /// Address already in use) (errno: 98)`), and `replay` then printed SwiftNIO's complaint that
    /// a task was scheduled on an event loop already shut down (its drain helper let go too late).
    @Test func aPortInUseIsSaidPlainlyAndNothingElse() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = try TapedeckBinary.locate()
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { harness in
            let port = harness.server.port
            for command in [["replay", Fixtures.exampleCassette.path], ["record", directory.appending(path: "new.json").path]] {
                let result = try await Subprocess.run(executable: binary.path, arguments: command + ["--port", "\(port)"])
                #expect(result.status == 1, "\(command)")
                #expect(result.error == "tapedeck \(command[0]): cannot listen on 127.0.0.1:\(port): the port is in use (by another "
                        + "server, or a tapedeck still running); choose another with --port, or --port 0 for a free one\n")
            }
        }
    }

    @Test func badOptionsExitTwo() async throws {
        let binary = try TapedeckBinary.locate()
        for arguments in [["--latency", "slow"], ["--on-exhausted", "never"], ["--ignore-json-path", "nope["], ["--jitter", "500"]] {
            let result = try await Subprocess.run(executable: binary.path, arguments: ["replay", Fixtures.exampleCassette.path, "--port", "0"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(!result.error.isEmpty)
        }
    }

    @Test func caCommandsCreateAndShowTheAuthority() async throws {
        let home = try Fixtures.temporaryDirectory().appending(path: "nested-home")
        defer { try? FileManager.default.removeItem(at: home.deletingLastPathComponent()) }
        let binary = try TapedeckBinary.locate()
        let environment = ["TAPEDECK_HOME": home.path]
        let created = try await Subprocess.run(executable: binary.path, arguments: ["ca", "init"], environment: environment)
        #expect(created.status == 0)
        #expect(created.text.hasPrefix("created "))
        let again = try await Subprocess.run(executable: binary.path, arguments: ["ca", "init"], environment: environment)
        #expect(again.text.hasPrefix("exists "))
        let path = try await Subprocess.run(executable: binary.path, arguments: ["ca", "path"], environment: environment)
        #expect(path.text == home.appending(path: "ca.pem").path + "\n")
        let exported = try await Subprocess.run(executable: binary.path, arguments: ["ca", "export"], environment: environment)
        #expect(exported.text.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(exported.text == (try String(contentsOf: home.appending(path: "ca.pem"), encoding: .utf8)))
        let key = try FileManager.default.attributesOfItem(atPath: home.appending(path: "ca-key.pem").path)
        #expect((key[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: home.path)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        let openssl = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["openssl", "x509", "-noout", "-text", "-in", home.appending(path: "ca.pem").path])
        #expect(openssl.text.contains("CA:TRUE"))
    }

    /// Without `TAPEDECK_HOME` the authority lives in `.tapedeck` under `$HOME`, as `~` reads in a
    /// shell. Before, it was under the account's home folder whatever `HOME` said (Foundation's
    /// choice on Linux), so a run with `HOME` set elsewhere wrote to the real home.
    @Test func withoutTapedeckHomeTheAuthorityIsUnderHOME() async throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let path = try await Subprocess.run(executable: try TapedeckBinary.locate().path, arguments: ["ca", "path"],
                                            environment: ["HOME": home.path, "TAPEDECK_HOME": ""])
        #expect(path.text == home.appending(path: ".tapedeck/ca.pem").path + "\n", "\(path.text) \(path.error)")
    }
}
