import Foundation
import NIOCore

/// A request body past the memory threshold, handed on while it still arrives: a large upload the
/// recording proxy forwards whatever its bytes are, so the upstream takes it as the client sends it.
/// Its bytes are in its ``UploadSpool``'s file as they come, and whoever sends them reads them from
/// there: the upload holds no more memory than a spooled one, and a request sent again (a retry on
/// a new upstream connection) reads the file from its start. Lives on its connection's event loop.
package final class ArrivingUpload: Sendable {
    private struct State {
        var file: URL
        var available = 0
        var whole: SpooledBody?
        var failed = false
        var waiters: [() -> Void] = []
    }

    private let state: NIOLoopBoundBox<State>
    /// The most bytes read from the file and sent upstream at once.
    static let pieceSize = 1 << 20

    /// - Parameter file: the spool's file, which holds the bytes as they arrive.
    init(file: URL, eventLoop: any EventLoop) {
        state = NIOLoopBoundBox(State(file: file), eventLoop: eventLoop)
    }

    /// Where its bytes are: the spool's file while they arrive, the whole body's once it ended.
    var file: URL { state.value.whole?.file.url ?? state.value.file }

    /// How many bytes from the start are in ``file``.
    var available: Int { state.value.available }

    /// The whole body, once the client sent all of it.
    var whole: SpooledBody? { state.value.whole }

    /// Whether the client left before the end.
    var hasFailed: Bool { state.value.failed }

    /// More bytes are in the file.
    func grew(to size: Int) {
        guard size > state.value.available else { return }
        state.value.available = size
        wake()
    }

    /// The client sent the end: the body is whole, named by its digest.
    func finish(_ body: SpooledBody) {
        state.value.whole = body
        state.value.available = body.file.size
        wake()
    }

    /// The client left before the end, or the body could not be kept.
    func fail() {
        guard state.value.whole == nil, !state.value.failed else { return }
        state.value.failed = true
        wake()
    }

    /// Runs `action` once, at the next change: more bytes, the end, or the failure.
    func whenChanged(_ action: @escaping () -> Void) {
        state.value.waiters.append(action)
    }

    /// Runs `action` with the whole body once it ended, or with nil once it failed (at once when it did already).
    func whenEnded(_ action: @escaping (SpooledBody?) -> Void) {
        if let whole { return action(whole) }
        if hasFailed { return action(nil) }
        whenChanged { [self] in whenEnded(action) }
    }

    private func wake() {
        let waiters = state.value.waiters
        state.value.waiters = []
        for waiter in waiters { waiter() }
    }
}
