import Foundation
import Testing

/// The Dockerfile and the Homebrew formula cannot be built on the machines this repository is
/// developed on (no Docker engine, no Homebrew), so these check what can be checked from their text.
@Suite struct PackagingTests {
    static let dockerfile = ToolingTestSupport.repository.appendingPathComponent("Dockerfile")
    static let formula = ToolingTestSupport.repository.appendingPathComponent("packaging/homebrew/tapedeck.rb")

    /// Two named stages: the official Swift image builds, a slim Debian runs what the build stage made.
    @Test func dockerfileBuildsWithSwiftAndRunsOnSlimDebian() throws {
        let file = Dockerfile(try String(contentsOf: Self.dockerfile, encoding: .utf8))
        try #require(file.stages.count == 2)
        let (build, runtime) = (file.stages[0], file.stages[1])
        #expect(build.image.hasPrefix("swift:"))
        #expect(runtime.image.hasPrefix("debian:") && runtime.image.hasSuffix("-slim"))
        let buildName = try #require(build.name)
        #expect(runtime.name != nil)
        let fromBuild = runtime.all("COPY").filter { $0.flag("from") == buildName }
        #expect(fromBuild.contains { $0.operands.last == "/usr/local/bin/tapedeck" })
    }

    /// Every file or folder a COPY takes from the build context is in the repository.
    @Test func dockerfileCopiesOnlyWhatExists() throws {
        let file = Dockerfile(try String(contentsOf: Self.dockerfile, encoding: .utf8))
        let copies = file.stages.flatMap { $0.all("COPY") + $0.all("ADD") }.filter { $0.flag("from") == nil }
        #expect(!copies.isEmpty)
        for copy in copies {
            for source in copy.operands.dropLast() {
                let path = ToolingTestSupport.repository.appendingPathComponent(source).path
                #expect(FileManager.default.fileExists(atPath: path), "COPY \(source): not in the repository")
            }
        }
    }

    /// The runtime stage runs as a user other than root, serves port 8080 on every interface of the
    /// container, and checks its health on the admin API.
    @Test func dockerfileRunsUnprivilegedOnPort8080WithAHealthCheck() throws {
        let runtime = try #require(Dockerfile(try String(contentsOf: Self.dockerfile, encoding: .utf8)).stages.last)
        let user = try #require(runtime.all("USER").last?.operands.first)
        #expect(!["root", "0"].contains(user.split(separator: ":")[0]))
        #expect(runtime.all("EXPOSE").contains { $0.operands.contains("8080") })
        let health = try #require(runtime.all("HEALTHCHECK").last)
        #expect(health.arguments.contains { $0.hasSuffix(":8080/__tapedeck/health") })
        let command = try #require(runtime.all("CMD").last).arguments.joined(separator: " ")
        #expect(command.contains(#""--host", "0.0.0.0""#) && command.contains(#""--port", "8080""#), "\(command)")
    }

    /// The formula's `test do` block runs `tapedeck --version`.
    @Test func formulaTestRunsVersion() throws {
        let text = try String(contentsOf: Self.formula, encoding: .utf8)
        let test = try #require(text.components(separatedBy: "test do").dropFirst().first?.components(separatedBy: "\n  end").first)
        #expect(test.contains("tapedeck --version"))
        #expect(text.contains("class Tapedeck < Formula"))
    }
}
