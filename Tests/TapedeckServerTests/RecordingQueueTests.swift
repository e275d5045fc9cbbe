import Foundation
@_spi(Internals) import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// Where finished exchanges are recorded: light ones at once on the caller's thread, heavy ones
/// on the recording thread, and never out of the order they finished.
@Suite struct RecordingQueueTests {
    /// What the queue handed over, in order, and whether each came on the caller's thread.
    final class Log: Sendable {
        let entries = Locked<[(url: String, onCaller: Bool)]>([])
        let callerThread = Locked<Thread?>(nil)
        /// The exchange whose recording waits for ``release()``, keeping the recording thread busy
        /// for as long as the test needs, whatever the machine's speed.
        private let held: String?
        private let gate = DispatchSemaphore(value: 0)

        init(holding held: String? = nil) {
            self.held = held
        }

        /// Lets the held exchange be recorded.
        func release() { gate.signal() }

        /// Runs `body` (which adds exchanges) with this thread as the caller's.
        func adding(_ body: () -> Void) {
            callerThread.withLock { $0 = Thread.current }
            body()
        }

        func record(_ exchange: FinishedExchange) {
            if let held, exchange.request.url.hasSuffix(held) { gate.wait() }
            let onCaller = callerThread.withLock { $0 } === Thread.current
            entries.withLock { $0.append((exchange.request.url, onCaller)) }
        }

        /// Waits until `count` exchanges were recorded, for at most ten seconds.
        func waitFor(_ count: Int) async throws -> [(url: String, onCaller: Bool)] {
            for _ in 0..<1000 {
                let entries = entries.withLock { $0 }
                if entries.count >= count { return entries }
                try await Task.sleep(for: .milliseconds(10))
            }
            return entries.withLock { $0 }
        }
    }

    private func exchange(_ path: String, bodyBytes: Int = 10, encoding: String? = nil) -> FinishedExchange {
        var headers: HeaderList = ["Content-Type": "text/plain"]
        if let encoding { headers.append(name: "Content-Encoding", value: encoding) }
        return FinishedExchange(request: CassetteRequest(method: "GET", url: "http://127.0.0.1/\(path)"), status: 200,
                                headers: headers, body: Data(repeating: 0x61, count: bodyBytes), chunks: nil,
                                timing: Timing(firstByteMs: 1, totalMs: 1))
    }

    @Test func lightExchangesAreRecordedAtOnceOnTheCallersThread() {
        let log = Log()
        let queue = RecordingQueue(record: log.record)
        log.adding {
            queue.add(exchange("a"))
            queue.add(exchange("b", bodyBytes: FinishedExchange.lightLimit - 20))
        }
        let entries = log.entries.withLock { $0 }
        #expect(entries.map(\.url) == ["http://127.0.0.1/a", "http://127.0.0.1/b"])
        #expect(entries.allSatisfy { $0.onCaller })
    }

    @Test func heavyExchangesGoToTheRecordingThreadAndWhatFollowsWaitsBehindThem() async throws {
        let log = Log(holding: "/large")
        let queue = RecordingQueue(record: log.record)
        log.adding {
            queue.add(exchange("large", bodyBytes: FinishedExchange.lightLimit + 1))
            queue.add(exchange("small-after-large"))
            queue.add(exchange("gzip", encoding: "gzip"))
            queue.add(exchange("small-after-gzip"))
        }
        let recordedAtOnce = log.entries.withLock { $0 }
        #expect(recordedAtOnce.isEmpty, "nothing heavy, and nothing behind it, is recorded on the caller's thread")
        log.release()
        let entries = try await log.waitFor(4)
        #expect(entries.map(\.url) == ["large", "small-after-large", "gzip", "small-after-gzip"].map { "http://127.0.0.1/\($0)" })
        #expect(entries.allSatisfy { !$0.onCaller })
        // Once the recording thread is idle again (however long a loaded machine takes to get
        // there), light exchanges are recorded at once again.
        try await waitUntil { queue.isIdle }
        #expect(queue.isIdle)
        log.adding { queue.add(exchange("light-again")) }
        let last = log.entries.withLock { $0.last }
        #expect(last?.url == "http://127.0.0.1/light-again" && last?.onCaller == true)
    }
}
