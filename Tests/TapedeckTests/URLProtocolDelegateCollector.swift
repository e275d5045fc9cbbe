import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects what a delegate-based task receives.
final class URLProtocolDelegateCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var continuation: CheckedContinuation<(Data, (any Error)?), Never>?

    func run(_ start: () -> Void) async -> (Data, (any Error)?) {
        await withCheckedContinuation { continuation in
            lock.withLock { self.continuation = continuation }
            start()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { self.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, data) = lock.withLock { (self.continuation, self.data) }
        continuation?.resume(returning: (data, error))
    }
}
