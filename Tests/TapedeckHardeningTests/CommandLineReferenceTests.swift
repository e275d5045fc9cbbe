import Foundation
import TapedeckTestSupport
import Testing

/// docs/cli.md is what `tapedeck --help` and `tapedeck help COMMAND` print: the test makes the page
/// again from the binary the tests run, with the script that made it, and compares byte for byte.
@Suite struct CommandLineReferenceTests {
    @Test func theCommandLinePageIsWhatTheHelpPrints() throws {
        let root = HardeningFixtures.packageRoot
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let generated = directory.appending(path: "cli.md")
        let script = root.appending(path: "scripts/generate-cli-docs.sh")
        let run = try ChildProcess.run(URL(filePath: "/bin/bash"),
                                       [script.path, try TapedeckBinary.locate().path, generated.path])
        try #require(run.status == 0, "scripts/generate-cli-docs.sh failed: \(run.output)")
        let expected = try Data(contentsOf: generated)
        let committed = try Data(contentsOf: root.appending(path: "docs/cli.md"))
        #expect(committed == expected, """
            docs/cli.md differs from what the help prints now: build, then run \
            scripts/generate-cli-docs.sh and commit docs/cli.md.
            \(Self.firstDifference(String(decoding: committed, as: UTF8.self), String(decoding: expected, as: UTF8.self)))
            """)
        // The page covers every command, nested ones included.
        let page = String(decoding: expected, as: UTF8.self)
        for heading in ["## tapedeck replay", "## tapedeck record", "### tapedeck ca init", "### tapedeck har import",
                        "### tapedeck har export", "## tapedeck import-vcr", "## tapedeck drift"] {
            #expect(page.components(separatedBy: "\n").contains(heading), "docs/cli.md has no \(heading)")
        }
    }

    /// Where two texts part, as a line of each.
    static func firstDifference(_ committed: String, _ generated: String) -> String {
        let old = committed.components(separatedBy: "\n"), new = generated.components(separatedBy: "\n")
        for index in 0..<max(old.count, new.count) {
            let was = index < old.count ? old[index] : "(end of file)"
            let now = index < new.count ? new[index] : "(end of file)"
            if was != now { return "line \(index + 1): docs/cli.md has \"\(was)\", the help gives \"\(now)\"" }
        }
        return "the texts are the same but for their bytes"
    }
}
