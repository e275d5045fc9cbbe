import Foundation
import TapedeckServer
import TapedeckTestSupport
import Testing

/// What `tapedeck ... --help` tells a user: only values the command takes, whole sentences, and
/// every admin endpoint the server answers.
@Suite struct HelpTextTests {
    /// `record --help` lists the `--mode` values the recording proxy takes, not `replay`, which it
    /// refuses; the refusal names the command that replays.
    @Test func recordHelpListsOnlyTheModesItTakes() async throws {
        let help = try await Self.help(["record"])
        let line = try #require(help.split(separator: "\n").first { $0.contains("--mode <mode>") })
        let values = try #require(line.firstMatch(of: /\(values: ([^;)]*)/)).1
        #expect(Set(values.split(separator: ", ").map(String.init)) == ["new-episodes", "all", "once"], "\(values)")
        let refused = try await Subprocess.run(executable: try TapedeckBinary.locate().path,
                                               arguments: ["record", "unused.json", "--mode", "replay"])
        #expect(refused.status == 2)
        #expect(refused.error.contains("tapedeck replay"), "\(refused.error)")
    }

    /// A value that does not read says why, not only that it is invalid, and names the value
    /// once: a target written as `host:port` (as gRPC addresses are) gets the URL it stands for, one
    /// with another scheme or a query the part at fault, and a JSON path what is wrong with it.
    @Test(arguments: [
        (["record", "unused.json", "--target", "127.0.0.1:50051"], "for a plaintext service write http://127.0.0.1:50051"),
        (["record", "unused.json", "--target", "grpc://127.0.0.1:50051"], "an http or https base URL such as https://api.example.com, not grpc://"),
        (["record", "unused.json", "--target", "http://127.0.0.1:9000/api?x=1"], "a target takes no query (?x=1)"),
        (["replay", "--ignore-json-path", "meta.id"], "a path starts with $"),
        (["record", "unused.json", "--redact-json-path", "$.a["], "': missing ]"),
    ])
    func aValueThatDoesNotReadSaysWhy(arguments: [String], reason: String) async throws {
        let refused = try await Subprocess.run(executable: try TapedeckBinary.locate().path, arguments: arguments)
        #expect(refused.status == 2)
        #expect(refused.error.contains(reason), "\(refused.error)")
        let value = try #require(arguments.last)
        #expect(refused.error.components(separatedBy: "'\(value)'").count == 2 && !refused.error.contains("\"\(value)\""),
                "the value once, as the argument parser names it: \(refused.error)")
    }

    /// `record --help` says what the proxy records, HTTP/2, gRPC and WebSocket included: it once
    /// said WebSocket upgrades were tunnelled and not recorded, long after they were recorded.
    @Test func recordHelpSaysWhatItRecords() async throws {
        let help = try await Self.help(["record"])
        #expect(help.contains("HTTP/1.1 and HTTP/2 share the port"), "\(help)")
        #expect(help.contains("gRPC calls of every kind and WebSocket conversations are recorded"), "\(help)")
        #expect(!help.contains("WebSocket upgrades"), "\(help)")
    }

    /// Every overview is whole sentences: ArgumentParser wraps each line of a discussion itself, so a
    /// line break typed in mid-sentence shows as a short line ("Without it, a" / "forward proxy").
    /// Printed wide enough that nothing wraps, every line of every command's overview ends a
    /// sentence, but for its examples.
    @Test func overviewsBreakLinesOnlyBetweenSentences() async throws {
        for command in try await Self.commands() {
            let help = try await Self.help(command)
            let overview = help.components(separatedBy: "USAGE:")[0].components(separatedBy: "\nExample")[0]
            for line in overview.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                #expect(line.last.map { ".:?!".contains($0) } == true, "tapedeck \(command.joined(separator: " ")) --help: \(line)")
            }
        }
    }

    /// Each help fits a terminal of 80 columns: `tapedeck --help` gives each command one line, and
    /// every command's help ends its overview with an example of that command.
    @Test func everyHelpFitsATerminalAndShowsAnExample() async throws {
        for command in try await Self.commands() {
            let help = try await Self.help(command, columns: 80)
            for line in help.split(separator: "\n") {
                #expect(line.count <= 80, "tapedeck \(command.joined(separator: " ")) --help: \(line)")
            }
            let examples = help.components(separatedBy: "USAGE:")[0].components(separatedBy: "\nExample").dropFirst().first ?? ""
            #expect(examples.contains("\n  tapedeck \(command.joined(separator: " "))") || examples.contains("$(tapedeck \(command.joined(separator: " "))"),
                    "tapedeck \(command.joined(separator: " ")) --help shows no example of itself")
        }
        let top = try await Self.help([], columns: 80)
        let listed = top.components(separatedBy: "SUBCOMMANDS:")[1].components(separatedBy: "\n\n")[0].split(separator: "\n")
        #expect(listed.allSatisfy { !$0.hasPrefix("   ") }, "one line a command: \(listed)")
    }

    /// `--proto-descriptor-set`, shared by `replay`, `record` and `inspect`, is described in words
    /// true of each: what a command that serves nothing does with it comes first.
    @Test func theDescriptorSetOptionReadsTrueInEveryCommandThatTakesIt() async throws {
        for command in ["replay", "record", "inspect"] {
            let help = try await Self.help([command])
            // The option's entry: its name, and its description on the lines up to the next option.
            let entry = try #require(help.components(separatedBy: "\n  --proto-descriptor-set <FILE>").dropFirst().first)
            let line = entry.components(separatedBy: "\n  -")[0]
            #expect(line.contains("show them as JSON"), "\(command): \(line)")
            #expect(!line.contains("the inspector") && !line.contains("diagnoses"), "\(command): \(line)")
        }
    }

    /// `replay --help` names every admin endpoint, and each name it gives is one the server answers
    /// (a method it does not take gets 405, an unknown name 404).
    @Test(.requires(.curl)) func replayHelpListsEveryAdminEndpoint() async throws {
        let help = try await Self.help(["replay"])
        for name in AdminEndpoints.names {
            #expect(help.contains(name), "replay --help does not name \(name)")
        }
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try TapedeckProcess(["replay", "cassettes/example.json", "--port", "0"], environment: ["TAPEDECK_HOME": home.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        for name in AdminEndpoints.names + ["nonsense"] {
            let answer = try await Curl.run(["--request", "PATCH", "-H", "Content-Type: application/json", "--write-out", "%{http_code}", "--output", "/dev/null",
                                             "http://127.0.0.1:\(port)\(AdminEndpoints.prefix)\(name)"])
            #expect(answer.text == (name == "nonsense" ? "404" : "405"), "PATCH \(name)")
        }
    }

    /// `tapedeck` and each of its subcommands, one level down too (`ca init`, `har import`), as the
    /// SUBCOMMANDS sections of their help list them.
    static func commands() async throws -> [[String]] {
        var found: [[String]] = [[]]
        var index = 0
        while index < found.count {
            let command = found[index]
            index += 1
            guard command.count < 2 else { continue }
            let help = try await help(command)
            guard let section = help.components(separatedBy: "SUBCOMMANDS:").dropFirst().first else { continue }
            // The section's lines up to its first blank line: "  NAME (default)   Abstract."
            for line in section.drop(while: { $0 == "\n" }).components(separatedBy: "\n\n")[0].split(separator: "\n") {
                guard let name = line.split(separator: " ").first, name != "help" else { continue }
                found.append(command + [String(name)])
            }
        }
        return found
    }

    /// The help of `tapedeck COMMAND...`, by default printed 1,000 columns wide so that ArgumentParser wraps nothing.
    static func help(_ command: [String], columns: Int = 1000) async throws -> String {
        let result = try await Subprocess.run(executable: try TapedeckBinary.locate().path, arguments: command + ["--help"],
                                              environment: ["COLUMNS": "\(columns)"])
        #expect(result.status == 0, "tapedeck \(command.joined(separator: " ")) --help: \(result.error)")
        return result.text
    }
}
