import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
@_spi(Internals) import TapedeckCore

/// The inspector's live stream, `GET /__tapedeck/events`: server-sent events (text/event-stream)
/// to every page listening. Each new exchange is an `exchange` event whose data is its
/// ``ExchangeSummary`` as one line of JSON; `reset` says the exchanges were cleared. A comment
/// every ``heartbeat`` keeps proxies from closing the stream; a listener is forgotten when its
/// connection closes, and cut off when it leaves more than ``maxUnsentBytes`` unread (a page
/// reconnects by itself, and reloads the exchanges when it does).
package final class InspectorEvents: Sendable {
    /// How often a silent stream gets a comment line.
    package let heartbeat: TimeAmount
    /// The most listeners at once; a page over that gets 503 (a leaked tab must not grow the server).
    package let maxListeners: Int
    /// The most bytes of events a listener may leave unread before its stream is closed: one
    /// that stops reading (a stalled tab, a suspended process) held every later event in the
    /// server's memory, about 10 MB a second under load.
    package let maxUnsentBytes: Int

    private struct Listener {
        let sink: ResponseSink
        let pulse: RepeatedTask
        /// Bytes written to it that its connection has not sent yet.
        var unsent = 0
    }

    private let listeners = Locked<(next: Int, byID: [Int: Listener])>((0, [:]))

    /// Creates a stream with no listener yet.
    package init(heartbeat: TimeAmount = .seconds(15), maxListeners: Int = 32, maxUnsentBytes: Int = 1 << 20) {
        self.heartbeat = heartbeat
        self.maxListeners = maxListeners
        self.maxUnsentBytes = maxUnsentBytes
    }

    /// How many pages listen now.
    package var listenerCount: Int { listeners.withLock { $0.byID.count } }

    /// Answers `GET /__tapedeck/events`: sends the head and keeps the response open, adding the
    /// listener before the head leaves, so anything the client does after seeing it is sent.
    func listen(sink: ResponseSink) {
        if sink.isHead {
            sink.send(Self.head)
            return
        }
        let id: Int? = listeners.withLock { state in
            guard state.byID.count < maxListeners else { return nil }
            state.next += 1
            return state.next
        }
        guard let id else {
            sink.send(HTTPResponse(status: .serviceUnavailable, headerFields: [.contentType: "text/plain; charset=utf-8"]),
                      body: ByteBuffer(string: "too many inspector pages listen at once (at most \(maxListeners))\n"))
            return
        }
        let pulse = sink.eventLoop.scheduleRepeatedTask(initialDelay: heartbeat, delay: heartbeat) { [weak self] _ in
            self?.write(ByteBuffer(string: ": ping\n\n"), to: id, sink: sink)
        }
        listeners.withLock { $0.byID[id] = Listener(sink: sink, pulse: pulse) }
        // A page that goes away is forgotten at once, not at the next failed write.
        sink.eventLoop.execute { [weak self] in
            sink.clientClosed.whenComplete { [weak self] _ in self?.drop(id) }
        }
        sink.writeHead(Self.head).whenFailure { [weak self] _ in self?.drop(id) }
        write(ByteBuffer(string: "retry: 2000\n: listening\n\n"), to: id, sink: sink)
    }

    /// Sends an event to every listener.
    package func publish(event: String, data: String, id: Int? = nil) {
        let current = listeners.withLock { $0.byID }
        guard !current.isEmpty else { return }
        var text = "event: \(event)\n"
        if let id { text += "id: \(id)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        text += "\n"
        let buffer = ByteBuffer(string: text)
        for (number, listener) in current { write(buffer, to: number, sink: listener.sink) }
    }

    /// Ends every stream (the server is stopping: a stream never ends by itself, and the drain
    /// waits for the answers under way).
    package func closeAll() {
        let all = listeners.withLock { state in
            defer { state.byID = [:] }
            return state.byID
        }
        for listener in all.values {
            listener.pulse.cancel()
            _ = listener.sink.end()
        }
    }

    private func write(_ buffer: ByteBuffer, to id: Int, sink: ResponseSink) {
        let size = buffer.readableBytes
        let fallenBehind = listeners.withLock { state -> Bool in
            state.byID[id]?.unsent += size
            return (state.byID[id]?.unsent ?? 0) > maxUnsentBytes
        }
        if fallenBehind {
            drop(id)
            sink.abort()
            return
        }
        sink.writeBody(buffer).whenComplete { [weak self] written in
            switch written {
            case .success: self?.listeners.withLock { $0.byID[id]?.unsent -= size }
            case .failure: self?.drop(id)
            }
        }
    }

    /// Forgets a listener whose connection is gone.
    private func drop(_ id: Int) {
        let listener = listeners.withLock { $0.byID.removeValue(forKey: id) }
        listener?.pulse.cancel()
    }

    private static let head = HTTPResponse(status: .ok, headerFields: [
        .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
    ])
}
