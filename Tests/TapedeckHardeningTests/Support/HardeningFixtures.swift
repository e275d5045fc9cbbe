import Foundation
import TapedeckTestSupport
import TapedeckCore

/// Paths, temporary folders and switches the hardening tests share.
enum HardeningFixtures {
    /// The package root, found from this file.
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The example cassette of the repository.
    static let exampleCassette = packageRoot.appending(path: "cassettes/example.json")

    /// Whether the heavy suite (30-second loads, 1,000 connections) runs: `TAPEDECK_HARDENING=1`.
    static let heavy = ProcessInfo.processInfo.environment["TAPEDECK_HARDENING"] == "1"

    /// Whether the tests run under a sanitizer (`scripts/sanitizers.sh`): several times slower,
    /// with shadow memory that inflates every process's resident size.
    static let sanitized = ProcessInfo.processInfo.environment["TAPEDECK_SANITIZER"] != nil

    /// Seconds each heavy load lasts (`TAPEDECK_HARDENING_SECONDS`, default 30).
    static let loadSeconds = Int(ProcessInfo.processInfo.environment["TAPEDECK_HARDENING_SECONDS"] ?? "") ?? 30

    /// A fresh temporary folder; remove it with `FileManager.removeItem` when done.
    static func temporaryDirectory() throws -> URL {
        let url = TestFiles.folder.appending(path: "tapedeck-hardening-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Prints one figure line the hardening script turns into the table of docs/security.md.
    static func report(scenario: String, amount: String, outcome: String, lost: String) {
        print("HARDENING-FIGURE|\(scenario)|\(amount)|\(outcome)|\(lost)")
    }
}

/// A test fixture failed; says what.
struct HardeningError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
