import Foundation
import TapedeckTestSupport
import Testing
import TapedeckCore

/// Paths, temporary folders and child processes for the tooling tests.
enum ToolingTestSupport {
    /// The folder of this test target.
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    /// The repository root.
    static let repository = testsFolder.deletingLastPathComponent().deletingLastPathComponent()

    /// A committed fixture beside the tests.
    static func fixture(_ name: String) -> URL { testsFolder.appendingPathComponent("Fixtures/\(name)") }

    /// The example cassette recorded from scripts/example_upstream.py.
    static var exampleCassette: URL { repository.appendingPathComponent("cassettes/example.json") }

    /// A fresh temporary folder, unique per call, so tests can run in parallel.
    static func temporaryFolder() throws -> URL {
        let url = TestFiles.folder.appendingPathComponent("tapedeck-tooling-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Saves `interactions` as `c.json` in a fresh temporary folder, every body past 1 KiB in a side
    /// file under `c.bodies`; returns the cassette's URL.
    static func cassetteWithSideFiles(_ interactions: [Interaction]) throws -> URL {
        let file = try temporaryFolder().appendingPathComponent("c.json")
        try CassetteCodec(sideFileThreshold: 1024).save(
            Cassette(meta: CassetteMeta(createdAt: "2026-11-21T10:00:00.000Z", recordedWith: "test"), interactions: interactions), to: file)
        return file
    }

    /// The outcome of a child process.
    struct Outcome {
        var status: Int32
        var killedBySignal: Bool
        var stdout: String
        var stderr: String
    }

    /// Runs a program to completion (bounded by `timeout` seconds) and collects its output.
    static func run(_ executable: URL, _ arguments: [String], timeout: TimeInterval = 60) throws -> Outcome {
        let result = try ChildProcess.run(executable, arguments, mergingErrors: false, timeout: timeout)
        return Outcome(status: result.status, killedBySignal: result.diedBySignal,
                       stdout: String(decoding: result.standardOutput, as: UTF8.self),
                       stderr: String(decoding: result.standardError, as: UTF8.self))
    }

    /// Runs `tapedeck` with arguments.
    static func tapedeck(_ arguments: String...) throws -> Outcome {
        try run(try TapedeckBinary.locate(), arguments)
    }

    /// Runs `tapedeck` with the size of any file it writes limited to `bytes` (RLIMIT_FSIZE), so a larger
    /// write fails part way (EFBIG) and tapedeck has to handle the failure.
    static func tapedeckWithFileSizeLimit(_ bytes: Int, _ arguments: [String]) throws -> Outcome {
        let launcher = "import os, resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1]))); "
            + "os.execv(sys.argv[2], sys.argv[2:])"
        return try run(URL(fileURLWithPath: "/usr/bin/env"),
                       ["python3", "-c", launcher, String(bytes), try TapedeckBinary.locate().path] + arguments)
    }

    /// Runs `tapedeck` and kills it with SIGKILL the moment its temporary file for `target` appears,
    /// that is while it is writing; tries up to `attempts` times and says whether a kill landed mid-write.
    static func tapedeckKilledWhileWriting(_ target: URL, _ arguments: [String], attempts: Int = 8) throws -> Bool {
        let folder = target.deletingLastPathComponent().path
        let prefix = ".\(target.lastPathComponent)."
        for _ in 0..<attempts {
            let process = SpawnedProcess()
            process.executableURL = try TapedeckBinary.locate()
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            var killed = false
            while process.isRunning && Date() < deadline {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                if names.contains(where: { $0.hasPrefix(prefix) && $0.hasSuffix(".tmp") }) {
                    kill(process.processIdentifier, SIGKILL)
                    killed = true
                    break
                }
            }
            if !killed && process.isRunning { process.terminate() }
            process.waitUntilExit()
            if killed && process.terminationReason == .uncaughtSignal { return true }
        }
        return false
    }

    /// Secrets of each shape, assembled at run time so no credential-shaped literal sits in the repository.
    enum FakeSecret {
        static let stripe = "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc"
        static let aws = "AK" + "IA" + "IOSFODNN7EXAMPLE"
        static let github = "gh" + "p_" + String(repeating: "a1B2c3D4e5", count: 4)
        static let bearer = "Bearer " + "abc.def-" + "0123456789xyz"
        static let basic = "Basic " + Data("alice:wonderland".utf8).base64EncodedString()
        static let privateKey = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEow...\n-----END RSA PRIVATE KEY-----"
        static let slack = "xo" + "xb-" + "1234567890-abcdefghij"
        static let google = "AI" + "za" + String(repeating: "Sy0123456", count: 4).prefix(35)
        static let jwt = "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    }
}

/// A test helper that could not do its part.
struct TestSupportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
