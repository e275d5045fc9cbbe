import Foundation
import Synchronization
import Tapedeck

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The shipped example cassette.
let exampleCassette = repositoryRoot.appendingPathComponent("cassettes/example.json")

/// A fresh empty folder under the system temporary folder.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A clock that never waits and remembers every sleep asked of it, to check delays without sleeping.
final class RecordingClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Mutex<(now: Duration, sleeps: [Duration])>((.zero, []))

    var now: Instant { Instant(offset: state.withLock { $0.now }) }
    var minimumResolution: Duration { .nanoseconds(1) }
    /// Every duration slept, in order.
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(deadline.offset - state.now)
            state.now = max(state.now, deadline.offset)
        }
    }
}

/// A clock that sleeps for real, so cancellation can arrive while waiting.
struct RealClock: Clock {
    let base = ContinuousClock()
    var now: ContinuousClock.Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }
    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}

/// `scripts/example_upstream.py` running on a free loopback port, stopped on `stop()`.
final class ExampleUpstream: Sendable {
    let process: Process
    /// `http://127.0.0.1:PORT`.
    let baseURL: String

    init() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", repositoryRoot.appendingPathComponent("scripts/example_upstream.py").path, "--port", "0"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "http://127.0.0.1:") else {
            process.terminate()
            throw UpstreamError(output: text)
        }
        self.process = process
        self.baseURL = "http://127.0.0.1:" + text[range.upperBound...].prefix { $0.isNumber }
    }

    /// The port, from the base URL.
    var authority: String { String(baseURL.dropFirst("http://".count)) }

    /// Stops the server at once (SIGKILL: a test process may hand its children a blocked SIGTERM).
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { usleep(5_000) }
    }

    struct UpstreamError: Error, CustomStringConvertible {
        let output: String
        var description: String { "the example upstream did not start: \(output)" }
    }
}
