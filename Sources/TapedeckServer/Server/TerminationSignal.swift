import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM without blocking a thread, so a server can stop cleanly.
public enum TerminationSignal {
    /// Suspends until SIGINT or SIGTERM arrives; returns the signal number.
    public static func wait() async -> Int32 {
        let watch = SignalWatch()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            watch.start(continuation)
        }
    }
}

/// The dispatch sources of one wait; they live on their own serial queue.
private final class SignalWatch: @unchecked Sendable {
    private let queue = DispatchQueue(label: "tapedeck.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var continuation: CheckedContinuation<Int32, Never>?

    func start(_ continuation: CheckedContinuation<Int32, Never>) {
        queue.sync {
            self.continuation = continuation
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [self] in fire(number) }
                source.resume()
                sources.append(source)
            }
        }
    }

    private func fire(_ number: Int32) {
        guard let continuation else { return }
        self.continuation = nil
        sources.forEach { $0.cancel() }
        continuation.resume(returning: number)
    }
}
