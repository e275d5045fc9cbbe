import Foundation
import Testing

/// Every relative link in README.md and docs/*.md leads somewhere: the file exists, and an anchor
/// (`page.md#heading`, `#heading`) names a heading of the target page by GitHub's rules. Links
/// inside fenced code blocks and inline code, and links to other sites, are not checked. Also: the
/// README stays short, and no page tells the story of how the project came about.
@Suite struct DocumentationLinksTests {
    /// README.md and every page under docs/.
    static func documentationFiles() throws -> [URL] {
        let root = HardeningFixtures.packageRoot
        let docs = root.appending(path: "docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }.sorted()
        return [root.appending(path: "README.md")] + pages.map { docs.appending(path: $0) }
    }

    @Test func everyRelativeLinkAndAnchorResolves() throws {
        let files = try Self.documentationFiles()
        #expect(files.count > 10, "the docs/ pages were not found: \(files)")
        let broken = MarkdownLinks.broken(in: files)
        #expect(broken.isEmpty, "broken links:\n\(broken.map(\.description).joined(separator: "\n"))")
        // Not vacuous: the pages do link to each other, with anchors.
        let links = try files.flatMap { MarkdownLinks.links(in: try String(contentsOf: $0, encoding: .utf8)) }
        #expect(links.filter { $0.contains(".md#") }.count > 20)
    }

    @Test func theCheckerCatchesAMissingFileAndAMissingAnchor() throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appending(path: "good.md"), bad = directory.appending(path: "bad.md")
        try Data("""
            # Title
            ## A heading
            ## A heading
            ### Reading messages: `--proto-descriptor-set`
            See [the second](#a-heading-1), [the first](#a-heading), [this](#reading-messages---proto-descriptor-set),
            [the other page](bad.md#the-cassettes-lifecycle-http2), [a folder](.), [a site](https://example.com/x.md#nope).
            """.utf8).write(to: good)
        try Data("""
            ## The cassette's lifecycle: HTTP/2
            [gone](missing.md) and [no such heading](good.md#nope) and [nor here](#nowhere).
            `[in code](ignored.md)`
            ```
            [in a fence](ignored.md#too)
            ```
            """.utf8).write(to: bad)
        #expect(MarkdownLinks.broken(in: [good]).isEmpty, "\(MarkdownLinks.broken(in: [good]))")
        let broken = MarkdownLinks.broken(in: [good, bad])
        #expect(Set(broken.map(\.link)) == ["missing.md", "good.md#nope", "#nowhere"], "\(broken)")
    }

    @Test func headingsGetGitHubsAnchors() {
        #expect(MarkdownLinks.anchor(of: "Reading messages: `--proto-descriptor-set`") == "reading-messages---proto-descriptor-set")
        #expect(MarkdownLinks.anchor(of: "HTTP/2 replay") == "http2-replay")
        #expect(MarkdownLinks.anchor(of: "The cassette's lifecycle: secrets, expiry") == "the-cassettes-lifecycle-secrets-expiry")
        #expect(MarkdownLinks.anchor(of: "gRPC: `TapedeckGRPC`") == "grpc-tapedeckgrpc")
        #expect(MarkdownLinks.anchor(of: "See [the page](x.md) now_here") == "see-the-page-now_here")
        #expect(MarkdownLinks.anchors(in: "# A\n## A\n```\n# A\n```\n## A\n") == ["a", "a-1", "a-2"])
    }

    @Test func theReadmeIsAtMostFourHundredLines() throws {
        let readme = try String(contentsOf: HardeningFixtures.packageRoot.appending(path: "README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count - (readme.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= 400, "README.md has \(lines) lines; move detail into docs/")
    }

    @Test func noPageTellsTheStoryOfItsRounds() throws {
        for file in try Self.documentationFiles() {
            let text = try String(contentsOf: file, encoding: .utf8).lowercased()
            for phrase in ["this stop", "stop of", "th stop"] {
                #expect(!text.contains(phrase), "\(file.lastPathComponent) says \"\(phrase)\": describe the project as it is")
            }
        }
    }
}

/// Links and headings of Markdown pages, read as GitHub renders them.
enum MarkdownLinks {
    /// A relative link that does not resolve.
    struct Broken: CustomStringConvertible {
        let file: String
        let link: String
        let reason: String
        var description: String { "\(file): (\(link)): \(reason)" }
    }

    /// The broken relative links of `files`.
    static func broken(in files: [URL]) -> [Broken] {
        var anchorsByFile: [String: Set<String>] = [:]
        func anchors(of file: URL) -> Set<String>? {
            if let known = anchorsByFile[file.path] { return known }
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
            let found = Self.anchors(in: text)
            anchorsByFile[file.path] = found
            return found
        }
        var broken: [Broken] = []
        for file in files {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else {
                broken.append(Broken(file: file.path, link: "", reason: "cannot be read"))
                continue
            }
            for link in links(in: text) where !isExternal(link) {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let path = parts[0].removingPercentEncoding ?? parts[0]
                let target = path.isEmpty ? file : file.deletingLastPathComponent().appending(path: path).standardizedFileURL
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: target.path, isDirectory: &isDirectory) else {
                    broken.append(Broken(file: file.lastPathComponent, link: link, reason: "no file \(target.path)"))
                    continue
                }
                guard parts.count == 2 else { continue }
                guard !isDirectory.boolValue, target.pathExtension == "md", let known = anchors(of: target) else {
                    broken.append(Broken(file: file.lastPathComponent, link: link, reason: "an anchor into a file that is not a Markdown page"))
                    continue
                }
                if !known.contains(parts[1]) {
                    broken.append(Broken(file: file.lastPathComponent, link: link,
                                         reason: "no heading with anchor #\(parts[1]) in \(target.lastPathComponent)"))
                }
            }
        }
        return broken
    }

    /// Whether a link leaves the repository (`https:`, `mailto:`): any scheme.
    static func isExternal(_ link: String) -> Bool {
        link.range(of: "^[A-Za-z][A-Za-z0-9+.-]*:", options: .regularExpression) != nil
    }

    /// The targets of the inline links and images of a page, `[text](target)`, outside fenced
    /// code blocks and inline code.
    static func links(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#)
        return proseLines(of: text).flatMap { line -> [String] in
            let prose = withoutInlineCode(line)
            let range = NSRange(prose.startIndex..., in: prose)
            return pattern.matches(in: prose, range: range).compactMap { match in
                Range(match.range(at: 1), in: prose).map { String(prose[$0]) }
            }
        }
    }

    /// The anchors of a page's headings, as GitHub makes them: duplicates get -1, -2, ….
    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in proseLines(of: text) {
            guard let heading = heading(line) else { continue }
            let base = anchor(of: heading)
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// GitHub's anchor of a heading's text: the text as rendered (link targets and code marks
    /// gone), in lowercase, without characters other than letters, digits, spaces, hyphens and
    /// underscores, spaces made hyphens.
    static func anchor(of heading: String) -> String {
        let rendered = heading.replacingOccurrences(of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
        let kept = rendered.lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }
        return kept.replacingOccurrences(of: " ", with: "-")
    }

    /// The text of an ATX heading line (`## Text`), or nil.
    private static func heading(_ line: String) -> String? {
        let trimmed = line.drop { $0 == " " }
        guard line.count - trimmed.count <= 3 else { return nil }
        let hashes = trimmed.prefix { $0 == "#" }
        guard (1...6).contains(hashes.count) else { return nil }
        let rest = trimmed.dropFirst(hashes.count)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        var text = rest.trimmingCharacters(in: .whitespaces)
        // A closing run of #s, preceded by a space, is not part of the heading.
        if let closing = text.range(of: #"\s+#+$"#, options: .regularExpression) { text.removeSubrange(closing) }
        return text
    }

    /// The lines of a page outside fenced code blocks (``` or ~~~, closed by a fence of the same
    /// character at least as long).
    static func proseLines(of text: String) -> [String] {
        var prose: [String] = []
        var fence: (character: Character, length: Int)?
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let marker = trimmed.first.flatMap { $0 == "`" || $0 == "~" ? $0 : nil }
            let run = marker.map { character in trimmed.prefix { $0 == character }.count } ?? 0
            if let open = fence {
                if marker == open.character, run >= open.length, trimmed.allSatisfy({ $0 == open.character }) { fence = nil }
            } else if let marker, run >= 3 {
                fence = (marker, run)
            } else {
                prose.append(line)
            }
        }
        return prose
    }

    /// A line with its code spans (`code`, ``code with ` inside``) taken out.
    static func withoutInlineCode(_ line: String) -> String {
        var result = ""
        var rest = Substring(line)
        while let start = rest.firstIndex(of: "`") {
            result += rest[..<start]
            let run = rest[start...].prefix { $0 == "`" }
            let afterOpening = rest[run.endIndex...]
            // The span ends at the next run of exactly as many backticks.
            var search = afterOpening
            var end: Substring.Index?
            while let next = search.firstIndex(of: "`") {
                let closing = search[next...].prefix { $0 == "`" }
                if closing.count == run.count { end = closing.endIndex; break }
                search = search[closing.endIndex...]
            }
            guard let end else { result += run; rest = afterOpening; continue }
            rest = rest[end...]
        }
        return result + rest
    }
}
