import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TapedeckCore
import TapedeckServer
import TapedeckTestSupport
import Testing

/// Exhaustion policies, sessions and latency, as the server applies the core's decisions.
@Suite struct PlaybackPolicyTests {
    private func counterFile() throws -> (URL, URL) {
        let directory = try Fixtures.temporaryDirectory()
        return (directory, try Fixtures.writeCassette(Fixtures.counterCassette, named: "counter.json", in: directory))
    }

    private func answers(_ policy: ExhaustionPolicy, count: Int, headers: [(String, String)] = []) async throws -> [String] {
        let (directory, file) = try counterFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = PlaybackOptions()
        options.exhaustion = policy
        return try await ReplayHarness.run(files: [file], options: options) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                var answers: [String] = []
                for _ in 0..<count {
                    let response = try await Clients.send(client, .GET, harness.base + "/counter", headers: headers)
                    answers.append(response.status == 200 ? String(decoding: response.body, as: UTF8.self)
                                   : "\(response.status) \(response.headers.first(name: "Tapedeck-Error") ?? "")")
                }
                return answers
            }
        }
    }

    @Test func repeatLastServesTheLastAgain() async throws {
        #expect(try await answers(.repeatLast, count: 4) == ["one", "two", "two", "two"])
    }

    @Test func errorPolicyReportsExhausted() async throws {
        #expect(try await answers(.error, count: 3) == ["one", "two", "599 exhausted"])
    }

    @Test func cycleStartsAgain() async throws {
        #expect(try await answers(.cycle, count: 5) == ["one", "two", "one", "two", "one"])
    }

    @Test func exhaustedDiagnosisSaysSo() async throws {
        let (directory, file) = try counterFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = PlaybackOptions()
        options.exhaustion = .error
        try await ReplayHarness.run(files: [file], options: options) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                _ = try await Clients.send(client, .GET, harness.base + "/counter")
                _ = try await Clients.send(client, .GET, harness.base + "/counter")
                let response = try await Clients.send(client, .GET, harness.base + "/counter")
                let diagnosis = try JSONDecoder().decode(MatchDiagnosis.self, from: response.body)
                #expect(diagnosis.reason == .exhausted)
                #expect(diagnosis.nearest.count == 2)
            }
        }
    }

    @Test func sessionsHaveTheirOwnPositions() async throws {
        let (directory, file) = try counterFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                func get(_ session: String) async throws -> String {
                    let response = try await Clients.send(client, .GET, harness.base + "/counter", headers: [("Tapedeck-Session", session)])
                    return String(decoding: response.body, as: UTF8.self)
                }
                #expect(try await get("a") == "one")
                #expect(try await get("b") == "one")
                #expect(try await get("a") == "two")
                #expect(try await get("b") == "two")
                #expect(try await get("c") == "one")
                let journal = harness.responder.journal.document()
                #expect(journal.entries.map(\.session) == ["a", "b", "a", "b", "c"])
            }
        }
    }

    @Test(.requires(.curl)) func fixedLatencyIsScheduledBeforeTheHead() async throws {
        let (directory, file) = try counterFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = PlaybackOptions()
        options.latency = LatencyModel(.fixed(milliseconds: 150))
        try await ReplayHarness.run(files: [file], options: options) { (harness: ReplayHarness) async throws in
            let start = ContinuousClock.now
            let result = try await Curl.run([harness.base + "/counter"])
            #expect(result.text == "one")
            #expect(ContinuousClock.now - start >= .milliseconds(150))
            #expect(harness.scheduledDelays() == [ResponseDelay(head: .milliseconds(150), total: .milliseconds(150), chunks: [])])
        }
    }

    @Test(.requires(.curl)) func scaledLatencyMultipliesTheRecordedTimes() async throws {
        let (directory, file) = try counterFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = PlaybackOptions()
        options.latency = LatencyModel(.scale(0.5))
        try await ReplayHarness.run(files: [file], options: options) { (harness: ReplayHarness) async throws in
            _ = try await Curl.run([harness.base + "/counter"])
            _ = try await Curl.run([harness.base + "/counter"])
            #expect(harness.scheduledDelays().map(\.head) == [.milliseconds(10), .milliseconds(20)])
            #expect(harness.scheduledDelays().map(\.total) == [.milliseconds(15), .milliseconds(30)])
        }
    }

    @Test func seededJitterGivesTheSameDelaysInTwoRuns() async throws {
        let (directory, file) = try counterFile()
        defer { try? FileManager.default.removeItem(at: directory) }
        func run(seed: UInt64) async throws -> [ResponseDelay] {
            let options = PlaybackOptions(latency: LatencyModel(.recorded, jitter: Jitter(percent: 30, seed: seed)))
            return try await ReplayHarness.run(files: [file], options: options) { (harness: ReplayHarness) async throws in
                try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                    // Concurrent requests: the delays depend on the interaction and play count, not on scheduling.
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<6 { group.addTask { _ = try await Clients.send(client, .GET, harness.base + "/counter") } }
                        try await group.waitForAll()
                    }
                }
                return harness.scheduledDelays().sorted { $0.head < $1.head }
            }
        }
        let first = try await run(seed: 42)
        let second = try await run(seed: 42)
        let other = try await run(seed: 7)
        #expect(first.count == 6)
        #expect(first == second)
        #expect(first != other)
        #expect(first.allSatisfy { $0.head >= .milliseconds(14) && $0.head <= .milliseconds(52) })
        #expect(Set(first.map(\.head)).count > 2)
    }
}
