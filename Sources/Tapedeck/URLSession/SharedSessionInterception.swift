import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
@_spi(Internals) import TapedeckCore
#endif

/// Replays code that calls `URLSession.shared` (or builds its own session from a default
/// configuration) without injecting a session: the one piece of process-wide state in Tapedeck.
///
/// ```swift
/// try await SharedSessionInterception.run(with: try CassetteConnector(cassette: file)) {
///     let (data, _) = try await URLSession.shared.data(from: url)   // answered from the cassette
/// }
/// ```
///
/// While `body` runs, ``SharedSessionURLProtocol`` is registered with
/// `URLProtocol.registerClass` and answers, from `connector`, every http(s) request that
/// reaches a registered protocol. Sessions configured with `URLSessionConfiguration.replaying`
/// keep their own connector. Calls are serialised by a process-wide lock held for the
/// whole of `body`, so two tests never intercept at once; tests that do not call this stay
/// parallel. The `.cassette(..., sharedSession: true)` trait wraps the test in it.
///
/// Which sessions it reaches depends on the platform's loading system:
/// - Apple platforms: `URLSession.shared` and the other sessions Apple's loading system lets
///   registered protocols serve (not verified on a Mac by this project: no machine here has
///   Apple's SDK).
/// - Linux (FoundationNetworking): none for http(s). Every session, `URLSession.shared`
///   included, asks FoundationNetworking's own HTTP protocol first, so their requests still go
///   to the network: on Linux, inject a session made with `URLSessionConfiguration.replaying`.
public enum SharedSessionInterception {
    /// The connector requests are answered from while an interception runs.
    static let active = Locked<ConnectorRoute?>(nil)
    private static let turn = AsyncTurnstile()

    /// Whether an interception is running now.
    public static var isRunning: Bool { active.withLock { $0 != nil } }

    /// Runs `body` with shared-session requests answered by `connector`; waits for any other
    /// interception to end first.
    public static func run<Result: Sendable>(with connector: any HTTPConnector,
                                             _ body: () async throws -> Result) async rethrows -> Result {
        await turn.enter()
        active.withLock { $0 = ConnectorRoute(connector: connector) }
        _ = URLProtocol.registerClass(SharedSessionURLProtocol.self)
        defer {
            URLProtocol.unregisterClass(SharedSessionURLProtocol.self)
            active.withLock { $0 = nil }
            turn.leave()
        }
        return try await body()
    }
}

/// The protocol ``SharedSessionInterception`` registers process-wide: it answers from the
/// interception's connector, and from nothing once the interception has ended.
public final class SharedSessionURLProtocol: ConnectorURLProtocol {
    /// Claims http(s) requests only while an interception runs.
    public override class func canInit(with request: URLRequest) -> Bool {
        SharedSessionInterception.isRunning && super.canInit(with: request)
    }

    override func route() -> ConnectorRoute? {
        SharedSessionInterception.active.withLock { $0 }
    }
}

/// A first-come, first-served lock for async code: `enter()` suspends (never blocks a thread)
/// until every earlier caller has called `leave()`.
final class AsyncTurnstile: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Waits for the turn.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let proceed = state.withLock { state in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if proceed { continuation.resume() }
        }
    }

    /// Gives the turn to the next waiter, if any.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
