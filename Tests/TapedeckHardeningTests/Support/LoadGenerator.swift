import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
@_spi(Internals) import TapedeckCore
import TapedeckTestSupport

/// The figures of one load run.
struct LoadResult: Sendable {
    /// Connections opened.
    var connections = 0
    /// Connections that could not be opened.
    var connectFailures = 0
    /// Requests answered with the expected status.
    var succeeded = 0
    /// Requests answered otherwise, or lost to a closed or broken connection.
    var failed = 0
    /// The first few failures, for the test's message.
    var failures: [String] = []
    /// Latencies of the succeeded requests, in milliseconds.
    var latencies: [Double] = []
    /// The paths answered successfully (only when asked to keep them).
    var answeredPaths: [String] = []

    /// The latency at a percentile (0...100), in milliseconds.
    func percentile(_ value: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * value / 100))]
    }
}

/// A closed-loop HTTP/1.1 load generator on SwiftNIO: N keep-alive connections, each sending
/// its next request as soon as the previous answer ended, until the deadline.
enum LoadGenerator {
    /// Runs the load and returns its figures.
    /// - Parameters:
    ///   - target: the request target for connection `c`, request `n` (origin-form or absolute).
    ///   - keepPaths: whether to list every answered target (for checking a recorded cassette).
    static func run(port: Int, connections: Int, duration: Duration, expectedStatus: Int = 200, keepPaths: Bool = false,
                    target: @escaping @Sendable (_ connection: Int, _ request: Int) -> String) async throws -> LoadResult {
        let collected = LoadTotals()
        let deadline = NIODeadline.now() + TimeAmount(duration)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var channels: [any Channel] = []
        for number in 0..<connections {
            let handler = LoadConnectionHandler(number: number, deadline: deadline, expectedStatus: expectedStatus,
                                                keepPaths: keepPaths, target: target, collected: collected)
            do {
                let channel = try await ClientBootstrap(group: group)
                    .connectTimeout(.seconds(10))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                    }
                    .connect(host: "127.0.0.1", port: port).get()
                channels.append(channel)
            } catch {
                collected.withLock { result in
                    result.connectFailures += 1
                    if result.failures.count < 10 { result.failures.append("connect \(number): \(error)") }
                }
            }
        }
        collected.withLock { $0.connections = channels.count }
        for channel in channels { try? await channel.closeFuture.get() }
        try? await group.shutdownGracefully()
        return collected.withLock { $0 }
    }
}

/// One load connection: sends, waits for the answer, repeats until the deadline, then closes.
private final class LoadConnectionHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let number: Int
    private let deadline: NIODeadline
    private let expectedStatus: Int
    private let keepPaths: Bool
    private let target: @Sendable (Int, Int) -> String
    private let collected: LoadTotals
    private var sent = 0
    private var outstanding: (path: String, start: NIODeadline)?
    private var status = 0
    private var succeeded = 0
    private var failed = 0
    private var failures: [String] = []
    private var latencies: [Double] = []
    private var paths: [String] = []
    private var finished = false

    init(number: Int, deadline: NIODeadline, expectedStatus: Int, keepPaths: Bool,
         target: @escaping @Sendable (Int, Int) -> String, collected: LoadTotals) {
        self.number = number
        self.deadline = deadline
        self.expectedStatus = expectedStatus
        self.keepPaths = keepPaths
        self.target = target
        self.collected = collected
    }

    func channelActive(context: ChannelHandlerContext) {
        sendNext(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body: break
        case .end:
            guard let (path, start) = outstanding else { return }
            outstanding = nil
            if status == expectedStatus {
                succeeded += 1
                latencies.append(Double((NIODeadline.now() - start).nanoseconds) / 1e6)
                if keepPaths { paths.append(path) }
            } else {
                fail("\(path): status \(status)")
            }
            sendNext(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let (path, _) = outstanding { fail("\(path): connection closed before the answer") }
        outstanding = nil
        publish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let (path, _) = outstanding { fail("\(path): \(error)") }
        outstanding = nil
        context.close(promise: nil)
    }

    private func sendNext(context: ChannelHandlerContext) {
        guard NIODeadline.now() < deadline else {
            context.close(promise: nil)
            return
        }
        let path = target(number, sent)
        sent += 1
        var headers = HTTPHeaders([("Host", "api.example.test"), ("Content-Length", "0")])
        headers.add(name: "Connection", value: "keep-alive")
        outstanding = (path, .now())
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func fail(_ message: String) {
        failed += 1
        if failures.count < 3 { failures.append(message) }
    }

    private func publish() {
        guard !finished else { return }
        finished = true
        collected.withLock { result in
            result.succeeded += succeeded
            result.failed += failed
            result.latencies += latencies
            result.answeredPaths += paths
            for failure in failures where result.failures.count < 10 { result.failures.append(failure) }
        }
    }
}

/// The figures of all connections, merged under a lock.
final class LoadTotals: Sendable {
    private let result = Locked(LoadResult())

    /// Reads or changes the figures under the lock.
    func withLock<T>(_ body: (inout LoadResult) -> T) -> T { result.withLock { body(&$0) } }
}

/// Samples a process's resident memory once a second until stopped.
final class MemorySampler: Sendable {
    private let samples = Locked<[Int]>([])
    private let running = Locked(true)

    /// Starts sampling `process` on a thread of its own.
    init(_ process: TapedeckProcess) {
        Thread.detachNewThread { [self] in
            while self.running.withLock({ $0 }) {
                if let kib = process.residentKiB() { self.samples.withLock { $0.append(kib) } }
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    /// Stops and returns the samples in KiB.
    func stop() -> [Int] {
        running.withLock { $0 = false }
        return samples.withLock { $0 }
    }
}
