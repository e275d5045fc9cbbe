import Foundation
import TapedeckTestSupport
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

    /// The release archive carries the example cassette, and its README's quick start works with the
    /// binary it holds, run from the unpacked folder. The archive is staged from the debug binary
    /// (`TAPEDECK_RELEASE_BINARY`), so no release build is needed.
    @Test(.requires(.curl)) func releaseArchiveCarriesTheExampleAndItsQuickStartWorks() throws {
        let folder = try ToolingTestSupport.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let release = try Self.release(environment: ["TAPEDECK_RELEASE_BINARY": try TapedeckBinary.locate().path,
                                                     "TAPEDECK_RELEASE_DIST": folder.path])
        #expect(release.status == 0, "\(release.stderr)")
        let archive = try #require(release.stdout.split(separator: "\n").last.map(String.init))
        let unpacked = try ToolingTestSupport.run(URL(filePath: "/usr/bin/env"), ["tar", "-xzf", archive, "-C", folder.path])
        #expect(unpacked.status == 0, "\(unpacked.stderr)")
        let name = URL(filePath: archive).lastPathComponent.replacingOccurrences(of: ".tar.gz", with: "")
        let installed = folder.appending(path: name)
        #expect(try Data(contentsOf: installed.appending(path: "cassettes/example.json")) == Data(contentsOf: ToolingTestSupport.exampleCassette))
        let readme = try String(contentsOf: installed.appending(path: "README.md"), encoding: .utf8)
        let quickStart = try #require(readme.split(separator: "\n").first { $0.hasPrefix("./tapedeck replay cassettes/example.json") })
        let arguments = quickStart.components(separatedBy: "#")[0].split(separator: " ").dropFirst().map(String.init)
        let server = try TapedeckProcess(arguments + ["--port", "0"], environment: ["TAPEDECK_HOME": folder.appending(path: "home").path],
                                         directory: installed, binary: installed.appending(path: "tapedeck"))
        defer { server.stop() }
        let port = try server.waitUntilListening()
        let answer = try ToolingTestSupport.run(URL(filePath: "/usr/bin/env"), ["curl", "--silent", "http://127.0.0.1:\(port)/plaintext?name=Shawn"])
        #expect(answer.stdout == "Hello Shawn!")
    }

    /// Before building, the release script checks that the C libraries it links are there and
    /// names the Debian packages of those that are not, instead of ending in the linker's errors.
    /// A C compiler that links nothing stands for a machine without their development files.
    @Test func releaseScriptNamesThePackagesItLacksBeforeBuilding() throws {
        let release = try Self.release(environment: ["CC": "/bin/false", "TAPEDECK_RELEASE_DIST": "/nonexistent"])
        #expect(release.status == 1)
        #expect(release.stderr.contains("apt-get install -y zlib1g-dev libssl-dev"), "\(release.stderr)")
        #expect(!release.stdout.contains("Compiling"), "it built: \(release.stdout)")
    }

    /// Runs scripts/release.sh with extra `environment`, its outputs apart.
    static func release(environment: [String: String]) throws -> ToolingTestSupport.Outcome {
        let result = try ChildProcess.run(URL(filePath: "/bin/bash"), [ToolingTestSupport.repository.appending(path: "scripts/release.sh").path],
                                          environment: environment, mergingErrors: false, timeout: 300)
        return ToolingTestSupport.Outcome(status: result.status, killedBySignal: result.diedBySignal,
                                          stdout: String(decoding: result.standardOutput, as: UTF8.self),
                                          stderr: String(decoding: result.standardError, as: UTF8.self))
    }

    /// The formula's `test do` block runs `tapedeck --version`.
    @Test func formulaTestRunsVersion() throws {
        let text = try String(contentsOf: Self.formula, encoding: .utf8)
        let test = try #require(text.components(separatedBy: "test do").dropFirst().first?.components(separatedBy: "\n  end").first)
        #expect(test.contains("tapedeck --version"))
        #expect(text.contains("class Tapedeck < Formula"))
    }
}
