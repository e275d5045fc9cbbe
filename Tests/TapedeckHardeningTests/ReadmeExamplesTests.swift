import Foundation
import TapedeckTestSupport
import Testing

/// The README's recipes, run as written or checked against what the program does (issue "The
/// first hour", points 4 and 10): a newcomer copies them, so they must work.
@Suite struct ReadmeExamplesTests {
    private static let readme = (try? String(contentsOf: HardeningFixtures.packageRoot.appending(path: "README.md"), encoding: .utf8)) ?? ""

    /// The lines of the first fenced block of `kind` after the line containing `marker`.
    private static func block(after marker: String, kind: String) -> [String] {
        let lines = readme.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.contains(marker) }),
              let open = lines[start...].firstIndex(of: "```\(kind)") else { return [] }
        let body = lines[(open + 1)...]
        return Array(body.prefix { $0 != "```" })
    }

    @Test func proxyRecipesForHTTPURLsUseTheLowercaseVariable() {
        // curl ignores an uppercase HTTP_PROXY for http:// URLs, so such a recipe records nothing.
        let recipes = Self.readme.components(separatedBy: "\n").filter { $0.contains("_PROXY=") || $0.contains("_proxy=") }
        #expect(!recipes.isEmpty)
        for line in recipes where line.contains(" http://") && !line.contains("https://") {
            #expect(!line.contains("HTTP_PROXY="), "\(line)")
        }
    }

    @Test func theTemplatedStubAnswersAsTheReadmeShows() async throws {
        let stub = Self.block(after: "**A path template with a templated body:**", kind: "json").joined(separator: "\n")
        let console = Self.block(after: "**A path template with a templated body:**", kind: "console")
        let request = try #require(console.first { $0.hasPrefix("$ curl") })
        let shown = try #require(console.last)
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "stubs.json")
        try Data(stub.utf8).write(to: file)
        let server = try TapedeckProcess(["replay", "--port", "0", "--stubs", file.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        // The recipe as written, through the shell, pointed at this server's port.
        let command = request.dropFirst(2).replacingOccurrences(of: "curl ", with: "curl --silent ")
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
        let answer = try ChildProcess.run(URL(filePath: "/bin/sh"), ["-c", command])
        #expect(answer.output == shown, "\(command)")
    }

    @Test func lintReportsASyntaxErrorInTheFormTheReadmeGives() throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let broken = directory.appending(path: "broken.json")
        // Line 4, column 7: `oops` is not JSON.
        try Data("{\n  \"version\": 1,\n  \"interactions\": [\n      oops\n  ]\n}\n".utf8).write(to: broken)
        let result = try ChildProcess.run(try TapedeckBinary.locate(), ["lint", broken.path])
        #expect(Self.readme.contains("`broken.json: error: line 4, column 7: invalid JSON: …`"))
        #expect(result.output.contains("broken.json: error: line 4, column 7: invalid JSON: "), "\(result.output)")
    }
}
