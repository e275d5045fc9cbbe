import Foundation
import TapedeckTestSupport
import Testing

/// The recipes of the README and of the pages under docs/, run as written or checked against what
/// the program does: a newcomer copies them, so they must work. Each test reads its example from
/// the file that holds it, so a page that drifts from the program fails here.
@Suite struct ReadmeExamplesTests {
    /// The text of a documentation file, by its path from the package root (`README.md`, `docs/stubs.md`).
    static func text(of file: String) -> String {
        (try? String(contentsOf: HardeningFixtures.packageRoot.appending(path: file), encoding: .utf8)) ?? ""
    }

    /// README.md and every page under docs/, by their paths from the package root.
    static func documentationFiles() -> [String] {
        let docs = HardeningFixtures.packageRoot.appending(path: "docs")
        let pages = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return ["README.md"] + pages.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }

    /// The lines of the first fenced block of `kind` after the first line of `file` containing
    /// `marker` (the first fenced block of the file when `marker` is nil).
    static func block(in file: String, after marker: String?, kind: String) -> [String] {
        let lines = text(of: file).components(separatedBy: "\n")
        let start: Int?
        if let marker { start = lines.firstIndex { $0.contains(marker) } } else { start = lines.startIndex }
        guard let start, let open = lines[start...].firstIndex(of: "```\(kind)") else { return [] }
        return Array(lines[(open + 1)...].prefix { $0 != "```" })
    }

    @Test func theReadmeStartsWithTheTwoCommandsThatRunTheExampleAndTheTests() {
        // The first thing a newcomer copies: exactly these two commands, nothing else in the block.
        #expect(Self.block(in: "README.md", after: nil, kind: "sh") == [
            "swift run tapedeck replay cassettes/example.json   # serve the shipped example cassette on http://127.0.0.1:8080",
            "scripts/test.sh                                    # install what the tests use, then run swift test",
        ])
    }

    /// The README's test command does the set-up a fresh machine needs (apt-get update, then
    /// install; pip) before `swift test`, passing its arguments on; CI runs the same script rather
    /// than an install of its own.
    @Test func theTestCommandInstallsWhatTheTestsUseAndCIRunsIt() throws {
        let script = HardeningFixtures.packageRoot.appending(path: "scripts/test.sh")
        #expect(FileManager.default.isExecutableFile(atPath: script.path))
        let lines = Self.text(of: "scripts/test.sh").components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let update = try #require(lines.firstIndex { $0.contains("apt-get update") })
        let install = try #require(lines.firstIndex { $0.contains("apt-get install -y") })
        let pip = try #require(lines.firstIndex { $0.contains("pip install") })
        let test = try #require(lines.lastIndex { $0.hasPrefix("swift test") })
        #expect(update < install && install < test && pip < test)
        #expect(lines[test] == #"swift test "$@""#)
        for tool in ["curl", "nghttp2-client", "python3", "grpcio", "websockets", "jsonschema", "httpx", "h2", "requests"] {
            #expect(Self.text(of: "scripts/test.sh").contains(tool), "scripts/test.sh does not install \(tool)")
        }
        let ci = Self.text(of: ".ci/run")
        #expect(ci.contains("scripts/test.sh 2>&1 | tee "), "CI runs the README's test command and checks its log")
        #expect(!ci.contains("apt-get") && !ci.contains("pip install"), "the set-up lives in scripts/test.sh only")
    }

    @Test func proxyRecipesForHTTPURLsUseTheLowercaseVariable() {
        // curl ignores an uppercase HTTP_PROXY for http:// URLs, so such a recipe records nothing.
        var recipes: [String] = []
        for file in Self.documentationFiles() {
            recipes += Self.text(of: file).components(separatedBy: "\n")
                .filter { $0.contains("_PROXY=") || $0.contains("_proxy=") }
                .map { "\(file): \($0)" }
        }
        #expect(!recipes.isEmpty)
        for line in recipes where line.contains(" http://") && !line.contains("https://") {
            #expect(!line.contains("HTTP_PROXY="), "\(line)")
        }
    }

    @Test(.requires(.curl)) func theExampleCassetteAnswersAsTheReadmeShows() throws {
        let recipe = Self.block(in: "README.md", after: "With the server running", kind: "sh")
        #expect(recipe.count == 2, "\(recipe)")
        let server = try TapedeckProcess(["replay", "--port", "0", HardeningFixtures.exampleCassette.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        for line in recipe {
            let parts = line.components(separatedBy: "#")
            let command = parts[0].trimmingCharacters(in: .whitespaces)
                .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
            let comment = parts.dropFirst().joined(separator: "#").trimmingCharacters(in: .whitespaces)
            let answer = try ChildProcess.run(URL(filePath: "/bin/sh"), ["-c", command], mergingErrors: false)
            if let shown = comment.components(separatedBy: "the recorded answer: ").dropFirst().first {
                #expect(answer.output == shown, "\(command)")
            } else {
                // "599 with a JSON diagnosis: the nearest recording and why it failed"
                let status = try #require(comment.split(separator: " ").first)
                #expect(answer.output.hasPrefix("HTTP/1.1 \(status) "), "\(command): \(answer.output)")
                #expect(answer.output.contains("Tapedeck-Error: no-match"), "\(answer.output)")
                #expect(answer.output.contains("\"nearest"), "\(answer.output)")
            }
        }
    }

    @Test(.requires(.curl)) func theReadmeStubRecipeAnswersAsShown() throws {
        try Self.runStubRecipe(in: "README.md", after: "Write the stubs to `stubs.json`:")
    }

    @Test(.requires(.curl)) func theTemplatedStubAnswersAsTheStubsPageShows() throws {
        try Self.runStubRecipe(in: "docs/stubs.md", after: "**A path template with a templated body:**")
    }

    /// Serves the stub file of the `json` block after `marker` and runs the `$ curl` line of the
    /// `console` block after it, expecting the console's last line as the answer.
    static func runStubRecipe(in file: String, after marker: String) throws {
        let stub = block(in: file, after: marker, kind: "json").joined(separator: "\n")
        let console = block(in: file, after: marker, kind: "console")
        #expect(!stub.isEmpty, "no json block after \(marker) in \(file)")
        let request = try #require(console.first { $0.hasPrefix("$ curl") }, "no curl line after \(marker) in \(file)")
        let shown = try #require(console.last)
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stubFile = directory.appending(path: "stubs.json")
        try Data(stub.utf8).write(to: stubFile)
        let server = try TapedeckProcess(["replay", "--port", "0", "--stubs", stubFile.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        // The recipe as written, through the shell, pointed at this server's port.
        let command = request.dropFirst(2).replacingOccurrences(of: "curl ", with: "curl --silent ")
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
        let answer = try ChildProcess.run(URL(filePath: "/bin/sh"), ["-c", command])
        #expect(answer.output == shown, "\(file): \(command)")
    }

    @Test func lintReportsASyntaxErrorInTheFormTheToolingPageGives() throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = directory.appending(path: "broken.json")
        // Line 4, column 7: `oops` is not JSON.
        try Data("{\n  \"version\": 1,\n  \"interactions\": [\n      oops\n  ]\n}\n".utf8).write(to: broken)
        let result = try ChildProcess.run(try TapedeckBinary.locate(), ["lint", broken.path])
        #expect(Self.text(of: "docs/cassette-tooling.md").contains("`broken.json: error: line 4, column 7: invalid JSON: …`"))
        #expect(result.output.contains("broken.json: error: line 4, column 7: invalid JSON: "), "\(result.output)")
    }

    @Test func inspectPrintsTheLinesTheToolingPageShows() throws {
        let console = Self.block(in: "docs/cassette-tooling.md", after: "## `tapedeck inspect`", kind: "console")
        let command = try #require(console.first)
        #expect(command == "$ swift run tapedeck inspect cassettes/example.json")
        let root = HardeningFixtures.packageRoot.path
        let result = try ChildProcess.run(URL(filePath: "/bin/sh"),
                                          ["-c", "cd '\(root)' && '\(try TapedeckBinary.locate().path)' inspect cassettes/example.json"])
        let printed = Set(result.output.components(separatedBy: "\n"))
        let shown = console.dropFirst().filter { $0 != "…" }
        #expect(shown.count >= 2)
        for line in shown {
            #expect(printed.contains(line), "inspect does not print the page's line \(line)\n\(result.output)")
        }
    }
}
