import Foundation
import TapedeckCore
import TapedeckTestSupport
import Testing

/// A corpus of malformed requests replayed against a live `tapedeck replay`: the server never
/// crashes, and always answers or closes the connection.
@Suite struct MalformedRequestTests {
    @Test func serverAnswersOrClosesEveryMalformedRequestAndStaysUp() async throws {
        let directory = try HardeningFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: HardeningFixtures.exampleCassette, to: directory.appending(path: "example.json"))
        let server = try TapedeckProcess(["replay", "--port", "0", "--max-body", "1024", "--idle-timeout", "2",
                                          "--cassette-dir", directory.path, HardeningFixtures.exampleCassette.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()

        let outcomes = try await withThrowingTaskGroup(of: (MalformedRequestCorpus.Case, Int?, RawSocket.Ending, Int).self) { group in
            for hostile in MalformedRequestCorpus.cases {
                group.addTask {
                    let socket = try RawSocket(port: port, timeout: 15)
                    socket.send(hostile.bytes)
                    let answer = await socket.read()
                    return (hostile, answer.data.httpStatus, answer.ending, answer.data.httpResponseCount)
                }
            }
            var all: [(MalformedRequestCorpus.Case, Int?, RawSocket.Ending, Int)] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        var answered = 0
        for (hostile, status, ending, count) in outcomes {
            // Either an HTTP answer, or the server closed (or reset) the connection: never silence until our timeout.
            #expect(ending != .timedOut, "\(hostile.name): the server neither answered nor closed")
            if let status {
                answered += 1
                if !hostile.acceptable.isEmpty {
                    #expect(hostile.acceptable.contains(status), "\(hostile.name): status \(status), expected one of \(hostile.acceptable.sorted())")
                }
            }
            if hostile.name == "100 pipelined requests" { #expect(count == 101) }
        }
        #expect(server.process.isRunning, "the server died: \(server.standardErrorSoFar())")
        let healthy = try await RawSocket.exchange(port: port, "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(healthy.data.httpStatus == 200)
        HardeningFixtures.report(scenario: "Malformed requests against `tapedeck replay`", amount: "\(outcomes.count) hostile inputs",
                                 outcome: "\(answered) answered with a 4xx/5xx or served, \(outcomes.count - answered) closed; server up",
                                 lost: "nothing")
    }
}
