import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `tapedeck replay` and `tapedeck ca` as a user runs them.
@Suite struct CommandLineTests {
    @Test(.requires(.curl), arguments: [SIGINT, SIGTERM])
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
                #expect(result.error == "tapedeck \(command[0]): error: cannot listen on 127.0.0.1:\(port): the port is in use (by another "
                        + "server, or a tapedeck still running); choose another with --port, or --port 0 for a free one\n")
            }
        }
    }

    /// Every command words its errors one way, `tapedeck COMMAND: error: ...` on the first line of
    /// standard error, the command as typed: a file it cannot read, a usage mistake ArgumentParser
    /// finds, a failure of the command's own.
    @Test(arguments: [
        (["replay", "/nonexistent/a.json"], "tapedeck replay"),
        (["replay", Fixtures.exampleCassette.path, "--latency", "slow"], "tapedeck replay"),
        (["record", "/nonexistent/a.json", "--mode", "sometimes"], "tapedeck record"),
        (["inspect", "/nonexistent/a.json"], "tapedeck inspect"),
        (["lint"], "tapedeck lint"),
        (["merge", Fixtures.exampleCassette.path, "--output", "/nonexistent/b.json"], "tapedeck merge"),
        (["har", "import", "/nonexistent/a.har", "--output", "/nonexistent/b.json"], "tapedeck har import"),
        (["ca", "path"], "tapedeck ca path"),
        (["no-such-command"], "tapedeck"),
    ])
    func everyCommandSaysItsErrorsInOneForm(arguments: [String], command: String) async throws {
        // A home under a file: the CA cannot be made there.
        let result = try await Subprocess.run(executable: try TapedeckBinary.locate().path, arguments: arguments,
                                              environment: ["TAPEDECK_HOME": "/dev/null/home"])
        #expect(result.status != 0)
        let first = result.error.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("\(command): error: "), "\(arguments): \(result.error)")
        #expect(!result.error.contains("Error: "), "\(arguments): \(result.error)")
    }

    /// A file of the wrong type is told in the project's words, with what its top level must be,
    /// by every command that reads one: never the decoder's `Expected to decode Dictionary<String, Any>`.
    @Test func aFileOfTheWrongTypeIsToldInTheProjectsWords() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = try Fixtures.writeCassette("[]", named: "list.json", in: directory)
        let har = try Fixtures.writeCassette(#"{"log": []}"#, named: "list.har", in: directory)
        let cassette = #"cassette: expected an object {"version": 1, "interactions": [...]}, found an array"#
        let stubs = #"stubs file: expected an object {"version": 1, "stubs": [...]}, found an array"#
        let readers: [([String], String)] = [
            (["replay", list.path], "tapedeck replay: error: \(list.path): \(cassette)"),
            (["replay", "--stubs", list.path], "tapedeck replay: error: \(list.path): \(stubs)"),
            (["record", directory.appending(path: "new.json").path, "--stubs", list.path], "tapedeck record: error: \(list.path): \(stubs)"),
            (["inspect", list.path], "tapedeck inspect: error: \(list.path): \(cassette)"),
            (["lint", list.path], "\(list.path): error: \(cassette)"),
            (["har", "import", har.path, "--output", directory.appending(path: "out.json").path],
             "tapedeck har import: error: \(har.path): log: expected an object, found an array"),
            (["prune", Fixtures.exampleCassette.path, "--journal", list.path, "--dry-run"],
             #"tapedeck prune: error: \#(list.path): journal: expected an object {"entries": [...], "dropped": 0}, found an array"#),
        ]
        let binary = try TapedeckBinary.locate()
        for (arguments, expected) in readers {
            let result = try await Subprocess.run(executable: binary.path, arguments: arguments + (arguments[0] == "replay" ? ["--port", "0"] : []),
                                                  environment: ["TAPEDECK_HOME": directory.appending(path: "home").path])
            #expect(result.status != 0, "\(arguments)")
            #expect((result.error + result.text).contains(expected), "\(arguments): \(result.error)\(result.text)")
            #expect(!(result.error + result.text).contains("Expected to decode"), "\(arguments)")
        }
        let content = try Fixtures.writeCassette(#"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "/"}, "response": {"status": "x"}}]}"#,
                                                 named: "content.json", in: directory)
        let result = try await Subprocess.run(executable: binary.path, arguments: ["replay", content.path, "--port", "0"])
        #expect(result.error == "tapedeck replay: error: \(content.path): interactions[0].response.status: expected an integer, found the string \"x\"\n")
    }

    @Test func badOptionsExitTwo() async throws {
        let binary = try TapedeckBinary.locate()
        for arguments in [["--latency", "slow"], ["--on-exhausted", "never"], ["--ignore-json-path", "nope["], ["--jitter", "500"]] {
            let result = try await Subprocess.run(executable: binary.path, arguments: ["replay", Fixtures.exampleCassette.path, "--port", "0"] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(!result.error.isEmpty)
        }
    }

    @Test(.requires(.openssl)) func caCommandsCreateAndShowTheAuthority() async throws {
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
