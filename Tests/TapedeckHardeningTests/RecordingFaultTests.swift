import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing

/// Faults while recording: upstream resets, truncated upstream bodies, a full disk and
/// kill -9 each leave a valid cassette and a clear log line; nothing acknowledged is lost.
///
/// "Acknowledged" means answered to the client and older than the recorder's flush delay
/// (200 ms): that is when the exchange is on disk.
@Suite struct RecordingFaultTests {
    private func get(_ port: Int, _ path: String) async throws -> (status: Int?, ending: RawSocket.Ending, text: String) {
        let answer = try await RawSocket.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                                  timeout: 30)
        return (answer.data.httpStatus, answer.ending, String(decoding: answer.data, as: UTF8.self))
    }

    private func paths(in cassette: URL) throws -> [String] {
        try CassetteCodec().load(cassette).interactions.map { $0.request.target.path }
    }

    @Test func upstreamResetAndTruncatedBodyAreLoggedAndNotRecorded() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LocalUpstream.start()
        let cassette = directory.appending(path: "faults.json")
        let server = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"])
        let port = try server.waitUntilListening()

        let first = try await get(port, "/before")
        let reset = try await get(port, "/reset")
        let truncated = try await get(port, "/truncated")
        let last = try await get(port, "/after")
        server.signal(SIGINT)
        #expect(server.waitForExit() == 0)
        let log = server.stop()
        await upstream.stop()

        #expect(first.status == 200 && last.status == 200)
        // The client sees the failure: a 502 or a connection closed before the promised body.
        #expect(reset.status == 502 || (reset.status == 200 && !reset.text.hasSuffix(String(repeating: "a", count: 100_000))))
        #expect(truncated.status == 502 || (truncated.status == 200 && truncated.ending != .timedOut))
        #expect(try paths(in: cassette) == ["/before", "/after"])
        // Each line names what happened on the upstream connection, not a list of guesses.
        for path in ["/reset", "/truncated"] {
            let line = Self.notRecordedLine(in: log, for: "GET \(upstream.base)\(path)")
            #expect(line?.contains("the upstream closed the connection before the answer was complete") == true
                || line?.contains("the upstream connection failed") == true, "\(line ?? "no line for \(path)")")
        }
        HardeningFixtures.report(scenario: "Upstream resets mid-body, and truncated bodies, while recording",
                                 amount: "1 reset + 1 truncated among 4 exchanges",
                                 outcome: "client gets 502 or a cut body; `not recorded: …` logged; cassette valid",
                                 lost: "nothing (the 2 complete exchanges are saved)")
    }

    /// The `not recorded: ...` line of the request `method url`, if logged.
    private static func notRecordedLine(in log: String, for request: String) -> String? {
        log.split(separator: "\n").first { $0.contains("not recorded: \(request):") }.map(String.init)
    }

    @Test func eachExchangeNotRecordedIsLoggedWithItsCause() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LocalUpstream.start()
        // Held until the test ends, so no server of a test running beside it can be given the port.
        let refusing = try RefusingPort()
        let closedPort = refusing.port
        defer { withExtendedLifetime(refusing) {} }
        // Forward proxies, so one server reaches a live upstream and a closed port alike. The
        // clients that hang up talk to a second proxy that waits two minutes for the upstream: on a
        // starved machine, a 1 s upstream timeout could otherwise fire before the hang-up is read.
        let impatient = try TapedeckProcess(["record", directory.appending(path: "impatient.json").path,
                                             "--port", "0", "--upstream-timeout", "1"])
        let patient = try TapedeckProcess(["record", directory.appending(path: "patient.json").path,
                                           "--port", "0", "--upstream-timeout", "120"])
        let impatientPort = try impatient.waitUntilListening()
        let patientPort = try patient.waitUntilListening()

        let refused = try await get(impatientPort, "http://127.0.0.1:\(closedPort)/nobody")
        let silent = try await get(impatientPort, "\(upstream.base)/hang?wait=timeout")
        // A client that gives up before the (silent) upstream answers, and one that hangs up with
        // its request, often before the upstream connection is even open.
        let leaving = try RawSocket(port: patientPort)
        leaving.send("GET \(upstream.base)/hang?wait=client HTTP/1.1\r\nHost: x\r\n\r\n")
        let leavingAtOnce = try RawSocket(port: patientPort)
        leavingAtOnce.send("GET \(upstream.base)/hang?wait=none HTTP/1.1\r\nHost: x\r\n\r\n")
        leavingAtOnce.hangUp()
        try await Task.sleep(for: .milliseconds(300))
        leaving.hangUp()
        let leavingRequests = ["GET \(upstream.base)/hang?wait=client", "GET \(upstream.base)/hang?wait=none"]
        try await waitUntil {
            let log = patient.standardErrorSoFar()
            return leavingRequests.allSatisfy { Self.notRecordedLine(in: log, for: $0) != nil }
        }
        for server in [impatient, patient] {
            server.signal(SIGINT)
            #expect(server.waitForExit() == 0)
        }
        let impatientLog = impatient.stop()
        let patientLog = patient.stop()
        await upstream.stop()

        #expect(refused.status == 502)
        #expect(silent.status == 504)
        let refusedLine = Self.notRecordedLine(in: impatientLog, for: "GET http://127.0.0.1:\(closedPort)/nobody")
        #expect(refusedLine?.contains("the upstream could not be reached") == true, "\(refusedLine ?? impatientLog)")
        #expect(refusedLine?.lowercased().contains("refused") == true, "\(refusedLine ?? impatientLog)")
        let silentLine = Self.notRecordedLine(in: impatientLog, for: "GET \(upstream.base)/hang?wait=timeout")
        #expect(silentLine?.contains("the upstream was silent for 1 s") == true, "\(silentLine ?? impatientLog)")
        for request in leavingRequests {
            let line = Self.notRecordedLine(in: patientLog, for: request)
            #expect(line?.contains("the client left before the whole answer was written to it") == true, "\(line ?? patientLog)")
        }
        // Nothing was recorded, so no cassette was written.
        let written = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(written.isEmpty, "\(written)")
    }

    @Test func fullDiskKeepsTheLastValidCassetteAndSavesEverythingWhenSpaceReturns() async throws {
        guard let disk = try SmallFilesystem.mount(kilobytes: 256) else {
            // No mount here: a cassette whose parent is a file cannot be written at all; the server says so and stays up.
            try await cassetteUnderAFileIsReportedAndTheServerStaysUp()
            return
        }
        defer { disk.unmount() }
        let upstream = try await LocalUpstream.start()
        let cassette = disk.directory.appending(path: "full.json")
        let server = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"])
        let port = try server.waitUntilListening()

        for number in 0..<3 { #expect(try await get(port, "/saved/\(number)").status == 200) }
        try await waitUntil { (try? paths(in: cassette).count) == 3 }
        #expect(try paths(in: cassette).count == 3)

        let filler = disk.fill()
        // Large enough that saving them needs new blocks: a small exchange may fit in the last
        // block of the spare file the save appends to, and then the save succeeds.
        let padding = "?pad=" + String(repeating: "p", count: 6000)
        for number in 0..<3 { #expect(try await get(port, "/pending/\(number)" + padding).status == 200) }
        try await waitUntil { server.standardErrorSoFar().contains("cannot save") }
        #expect(server.standardErrorSoFar().contains("cannot save"))
        #expect(try paths(in: cassette) == ["/saved/0", "/saved/1", "/saved/2"], "the cassette on disk stays the last valid one")

        try FileManager.default.removeItem(at: filler)
        #expect(try await get(port, "/after-space").status == 200)
        try await waitUntil { (try? paths(in: cassette).count) == 7 }
        #expect(try paths(in: cassette).count == 7, "everything answered while the disk was full is saved once space returns")
        server.signal(SIGINT)
        #expect(server.waitForExit() == 0)
        let log = server.stop()
        await upstream.stop()
        let line = log.split(separator: "\n").first { $0.contains("cannot save") }.map(String.init) ?? ""
        #expect(line.contains(cassette.lastPathComponent))
        HardeningFixtures.report(scenario: "Disk full while recording (256 KiB tmpfs filled)", amount: "3 exchanges while full",
                                 outcome: "`cannot save` logged; the old cassette stays valid; saved when space returns",
                                 lost: "nothing")
    }

    /// The fallback of the full-disk test where `mount` is not allowed.
    private func cassetteUnderAFileIsReportedAndTheServerStaysUp() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "plain-file")
        try Data("x".utf8).write(to: file)
        let upstream = try await LocalUpstream.start()
        let server = try TapedeckProcess(["record", file.appending(path: "c.json").path, "--target", upstream.base, "--port", "0"])
        let port = try server.waitUntilListening()
        #expect(try await get(port, "/one").status == 200)
        try await Task.sleep(for: .milliseconds(700))
        #expect(try await get(port, "/two").status == 200)
        server.signal(SIGINT)
        server.waitForExit()
        #expect(server.stop().contains("cannot save"))
        await upstream.stop()
    }

    @Test func aSecondRecorderOfTheSameCassetteIsRefusedAndTheFirstLosesNothing() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LocalUpstream.start()
        let cassette = directory.appending(path: "shared.json")
        let first = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"])
        let port = try first.waitUntilListening()
        #expect(try await get(port, "/first").status == 200)

        // Before, both ran, and whichever saved last overwrote the other's recordings.
        let second = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"])
        #expect(second.waitForExit() == 1)
        #expect(second.stop() == "tapedeck record: error: \(cassette.path): is being recorded by another recorder "
                + "(process \(first.process.processIdentifier)); a cassette is recorded by one at a time, or the later save "
                + "loses the earlier's recordings: stop that one, or record into another cassette\n")

        // The lock goes with its process, however it ends: after a kill -9 the next run records.
        #expect(try await get(port, "/second").status == 200)
        try await waitUntil { (try? paths(in: cassette).count) == 2 }
        first.signal(SIGKILL)
        first.waitForExit()
        _ = first.stop()
        let third = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"])
        let thirdPort = try third.waitUntilListening()
        #expect(try await get(thirdPort, "/third").status == 200)
        third.signal(SIGINT)
        #expect(third.waitForExit() == 0)
        _ = third.stop()
        await upstream.stop()
        #expect(try paths(in: cassette) == ["/first", "/second", "/third"])
        HardeningFixtures.report(scenario: "A second `tapedeck record` of a cassette being recorded", amount: "1 run refused",
                                 outcome: "exit 1 naming the first's process; the next run after a kill -9 records",
                                 lost: "nothing")
    }

    @Test func killNineLeavesAValidCassetteWithEverythingAcknowledged() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let upstream = try await LocalUpstream.start()
        let cassette = directory.appending(path: "killed.json")
        let server = try TapedeckProcess(["record", cassette.path, "--target", upstream.base, "--port", "0"])
        let port = try server.waitUntilListening()

        var acknowledged: [String] = []
        for number in 0..<30 {
            let path = "/acknowledged/\(number)"
            if try await get(port, path).status == 200 { acknowledged.append(path) }
        }
        try await Task.sleep(for: .milliseconds(500))
        // Keep 20 connections busy recording, and kill -9 in the middle of it.
        let load = Task {
            try await LoadGenerator.run(port: port, connections: 20, duration: .seconds(3)) { connection, request in
                "/in-flight/\(connection)/\(request)"
            }
        }
        try await Task.sleep(for: .milliseconds(1500))
        server.signal(SIGKILL)
        server.waitForExit()
        _ = server.stop()
        let during = try await load.value
        await upstream.stop()

        #expect(acknowledged.count == 30)
        let recorded = try paths(in: cassette)
        #expect(Set(acknowledged).isSubset(of: Set(recorded)))
        let inFlightSaved = recorded.count - acknowledged.count
        HardeningFixtures.report(scenario: "kill -9 while recording under load (20 connections)",
                                 amount: "30 acknowledged + \(during.succeeded) answered in the last 1.5 s",
                                 outcome: "cassette valid; \(inFlightSaved) of the last exchanges were already saved",
                                 lost: "nothing acknowledged (only exchanges younger than the 200 ms flush delay)")
    }
}
