@_spi(Internals) import TapedeckCore

/// What a WebSocket conversation has for its reader, in order: whatever produces the messages (a
/// replayed conversation's actions, an event loop reading frames) delivers them, and each call of
/// ``next()`` takes the oldest, waiting while there is none. Callers waiting together are served
/// in the order they came.
package final class WebSocketInbox<Element: Sendable>: Sendable {
    private struct State {
        var delivered: [Element] = []
        var waiting: [CheckedContinuation<Element, Never>] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Hands `element` to the oldest waiting reader, or keeps it for the next.
    package func deliver(_ element: Element) {
        let reader: CheckedContinuation<Element, Never>? = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.delivered.append(element)
                return nil
            }
            return state.waiting.removeFirst()
        }
        reader?.resume(returning: element)
    }

    /// The oldest element not yet taken, once there is one.
    package func next() async -> Element {
        await withCheckedContinuation { reader in
            let ready: Element? = state.withLock { state in
                guard !state.delivered.isEmpty else {
                    state.waiting.append(reader)
                    return nil
                }
                return state.delivered.removeFirst()
            }
            if let ready { reader.resume(returning: ready) }
        }
    }
}
