import Foundation
import TapedeckTestSupport
import Tapedeck
@_spi(Internals) import TapedeckCore

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The shipped example cassette.
let exampleCassette = repositoryRoot.appendingPathComponent("cassettes/example.json")

/// A fresh empty folder in this run's test folder (``TestFiles/folder``), removed when the run ends.
func makeTemporaryDirectory() throws -> URL {
    let url = TestFiles.folder.appendingPathComponent("tapedeck-tests-\(UUID().uuidString)")
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

    private let state = Locked<(now: Duration, sleeps: [Duration])>((.zero, []))

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

/// A clock whose sleeps last until cancelled, and which says when one has begun: lets a test
/// cancel a request while it is certainly waiting, without asserting on wall time.
final class BlockingClock: Clock, Sendable {
    private let started = Locked(0)
    private let base = ContinuousClock()

    var now: ContinuousClock.Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }
    /// How many sleeps have begun.
    var sleepsStarted: Int { started.withLock { $0 } }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        started.withLock { $0 += 1 }
        try await base.sleep(until: base.now.advanced(by: .seconds(3600)), tolerance: nil)
    }

    /// Waits (polling, at most `limit`) until a sleep has begun.
    func waitForSleep(limit: Duration = .seconds(60)) async throws {
        let deadline = base.now.advanced(by: limit)
        while sleepsStarted == 0, base.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }
}
