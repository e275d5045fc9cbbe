@_spi(Internals) import TapedeckCore

/// Counts the forwarded exchanges not yet finished or recorded, so shutdown can wait for them
/// before the final save.
final class InFlightExchanges: Sendable {
    private struct State {
        var running = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// How many exchanges are under way: forwarded, or finished and not yet recorded.
    var running: Int { state.withLock { $0.running } }

    /// Counts one exchange as started.
    func enter() {
        state.withLock { $0.running += 1 }
    }

    /// Counts one exchange as done, waking the waiters when none is left.
    func leave() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until every exchange started so far has finished.
    func waitForAll() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if state.running == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}
