/// Waits until `condition` holds, checking every 50 ms for up to a minute (a loaded machine may
/// take seconds for what usually takes milliseconds); the caller then asserts it, so a condition
/// that never holds still fails the test. `condition` may wait (a child process checking a
/// service), off Swift's cooperative threads (``ChildProcess/runOnOwnThread(_:_:environment:mergingErrors:timeout:)``).
public func waitUntil(_ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while try await !condition(), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(50))
    }
}
