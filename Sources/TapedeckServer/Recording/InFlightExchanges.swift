import Synchronization

/// The forwarding tasks still running, so shutdown can wait for them before the final save.
final class InFlightExchanges: Sendable {
    private struct State {
        var next = 0
        var tasks: [Int: Task<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Starts a task and keeps it until it finishes.
    func start(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let id = state.next
            state.next += 1
            state.tasks[id] = Task { [self] in
                await work()
                _ = self.state.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Waits until every task started so far has finished.
    func waitForAll() async {
        while let task = state.withLock({ $0.tasks.values.first }) {
            await task.value
        }
    }
}
