import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing

/// The heavy load suite: 1,000 keep-alive connections for 30 s against replay and record, and
/// 500 half-sent requests next to real clients. Runs only with `TAPEDECK_HARDENING=1`
/// (`scripts/hardening.sh`); every figure it prints goes into the table of docs/security.md.
@Suite(.serialized, .enabled(if: HardeningFixtures.heavy, "set TAPEDECK_HARDENING=1 (scripts/hardening.sh) to run the load suite"))
struct LoadTests {
    private let seconds = HardeningFixtures.loadSeconds

    private static func mebibytes(_ kib: Int) -> String { String(format: "%.0f MiB", Double(kib) / 1024) }

    @Test func replayServesAThousandKeepAliveConnectionsWithoutAFailureAndBoundedMemory() async throws {
        let server = try TapedeckProcess(["replay", "--port", "0", HardeningFixtures.exampleCassette.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        let idle = server.residentKiB() ?? 0
        let sampler = MemorySampler(server)
        let result = try await LoadGenerator.run(port: port, connections: 1000, duration: .seconds(seconds)) { _, _ in
            "/plaintext?name=Shawn"
        }
        let samples = sampler.stop()
        let peak = samples.max() ?? 0
        #expect(result.connectFailures == 0, "\(result.failures)")
        #expect(result.connections == 1000)
        #expect(result.failed == 0, "\(result.failures)")
        #expect(result.succeeded > 1000)
        // Bounded: the peak stays far below what 1,000 connections could cost if buffers leaked.
        #expect(peak < 512 * 1024, "peak RSS \(peak) KiB")
        #expect(server.process.isRunning)
        HardeningFixtures.report(
            scenario: "`tapedeck replay`: 1,000 concurrent keep-alive connections",
            amount: "\(seconds) s, \(result.succeeded) requests (\(result.succeeded / max(1, seconds))/s), p50 \(String(format: "%.1f", result.percentile(50))) ms, p99 \(String(format: "%.1f", result.percentile(99))) ms",
            outcome: "\(result.failed) failed; RSS \(Self.mebibytes(idle)) idle, peak \(Self.mebibytes(peak)), end \(Self.mebibytes(samples.last ?? 0))",
            lost: "nothing")
    }

    @Test func recordForwardsAThousandKeepAliveConnectionsAndKeepsEveryExchange() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LocalUpstream.start()
        let cassette = directory.appending(path: "load.json")
        let server = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"])
        let port = try server.waitUntilListening()
        let sampler = MemorySampler(server)
        let result = try await LoadGenerator.run(port: port, connections: 1000, duration: .seconds(seconds), keepPaths: true) { connection, request in
            "/load/\(connection)/\(request)"
        }
        let samples = sampler.stop()
        server.signal(SIGINT)
        let status = server.waitForExit(timeout: 120)
        let log = server.stop()
        await upstream.stop()
        #expect(status == 0, "\(log)")
        #expect(result.connectFailures == 0, "\(result.failures)")
        #expect(result.failed == 0, "\(result.failures)")
        let recorded = try CassetteCodec().load(cassette).interactions.map { $0.request.target.path }
        let missing = Set(result.answeredPaths).subtracting(recorded)
        #expect(missing.isEmpty, "\(missing.count) answered exchanges are not in the cassette, such as \(missing.prefix(3))")
        #expect(Set(recorded).count == recorded.count, "an exchange was recorded twice")
        HardeningFixtures.report(
            scenario: "`tapedeck record` (reverse proxy to a local upstream): 1,000 concurrent keep-alive connections",
            amount: "\(seconds) s, \(result.succeeded) exchanges (\(result.succeeded / max(1, seconds))/s), p99 \(String(format: "%.1f", result.percentile(99))) ms",
            outcome: "\(result.failed) failed; \(recorded.count) interactions in the cassette; RSS peak \(Self.mebibytes(samples.max() ?? 0))",
            lost: "\(missing.count) answered exchanges missing from the cassette")
    }

    @Test func fiveHundredHalfSentRequestsDoNotDelayOthersAndAreClosedAfterTheIdleTimeout() async throws {
        let idleTimeout = 5
        let server = try TapedeckProcess(["replay", "--port", "0", "--idle-timeout", "\(idleTimeout)", HardeningFixtures.exampleCassette.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()

        let baseline = try await LoadGenerator.run(port: port, connections: 50, duration: .seconds(2)) { _, _ in "/plaintext?name=Shawn" }
        let opened = Date()
        var slow: [RawSocket] = []
        for number in 0..<500 {
            let socket = try RawSocket(port: port, timeout: 1)
            // Half a request: the head never ends (odd numbers stop inside the body instead).
            if number.isMultiple(of: 2) {
                socket.send("GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            } else {
                socket.send("POST /postName HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nname=")
            }
            slow.append(socket)
        }
        let during = try await LoadGenerator.run(port: port, connections: 50, duration: .seconds(3)) { _, _ in "/plaintext?name=Shawn" }
        #expect(during.failed == 0 && during.connectFailures == 0, "\(during.failures)")
        // Not delayed: the other clients' slowest answer stays far below the idle timeout the slow ones hold.
        #expect(during.percentile(100) < Double(idleTimeout * 1000) / 2)

        var stillOpen = slow.count
        while stillOpen > 0 && Date().timeIntervalSince(opened) < Double(idleTimeout + 5) {
            try await Task.sleep(for: .milliseconds(250))
            stillOpen = slow.filter { !$0.isClosedByPeer() }.count
        }
        let closedAfter = Date().timeIntervalSince(opened)
        #expect(stillOpen == 0, "\(stillOpen) half-sent connections still open \(closedAfter) s after they stopped")
        #expect(closedAfter >= Double(idleTimeout) - 0.5, "closed before the idle timeout")
        #expect(server.process.isRunning)
        HardeningFixtures.report(
            scenario: "500 clients send half a request and stop, next to 50 normal keep-alive clients",
            amount: "500 slow + \(during.succeeded) normal requests in 3 s",
            outcome: "normal p99 \(String(format: "%.1f", during.percentile(99))) ms (before: \(String(format: "%.1f", baseline.percentile(99))) ms), 0 failed; all 500 closed \(String(format: "%.1f", closedAfter)) s after (idle timeout \(idleTimeout) s)",
            lost: "nothing")
    }
}
