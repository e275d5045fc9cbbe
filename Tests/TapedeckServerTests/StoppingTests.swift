import Foundation
import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// Stopping a server drains it (``TapedeckServer/shutdown()``): each connection finishes the answer
/// under way and then closes, saying so in its protocol's way. Real clients: curl and nghttp.
@Suite struct StoppingTests {
    /// Answers wait 2 s: the server is stopped while the request's answer is under way.
    private let latency = PlaybackOptions(latency: LatencyModel(.fixed(milliseconds: 2000)))

    /// Returns once the request has been played (its journal entry is written before its delay starts).
    private func answerUnderWay(_ harness: ReplayHarness) async throws {
        while harness.responder.journal.document().entries.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func anHTTP1AnswerUnderWayIsFinishedWithConnectionCloseBeforeTheServerStops() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], options: latency) { (harness: ReplayHarness) async throws in
            async let answer = Curl.run(["--http1.1", "--include", harness.base + "/plaintext?name=Shawn"])
            try await answerUnderWay(harness)
            let stopping = ContinuousClock.now
            try await harness.server.shutdown()
            let result = try await answer
            #expect(result.status == 0, "\(result.error)")
            #expect(result.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(result.text.contains("connection: close\r\n") || result.text.contains("Connection: close\r\n"))
            #expect(result.text.hasSuffix("Hello Shawn!"))
            #expect(ContinuousClock.now - stopping >= .milliseconds(1000), "shutdown waited for the answer")
            let refused = try await Curl.run(["--http1.1", harness.base + "/plaintext?name=Shawn"])
            #expect(refused.status != 0, "the server no longer listens")
        }
    }

    @Test func anHTTP2ConnectionSaysGoawayAtOnceAndFinishesItsStreamBeforeTheServerStops() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], options: latency) { (harness: ReplayHarness) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            // GET /plaintext?name=Shawn on stream 1, END_STREAM | END_HEADERS.
            let request = HTTP2Frames.requestBlock(get: true, path: "/plaintext?name=Shawn")
            socket.send(HTTP2Frames.greeting + HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: 1, request))
            try await answerUnderWay(harness)
            try await harness.server.shutdown()
            let received = await socket.read()
            #expect(received.ending == .closed, "the connection closes once its stream is done")
            let frames = HTTP2Frames.frames(in: received.data).filter { $0.type != 0x04 && $0.type != 0x08 }  // SETTINGS, WINDOW_UPDATE aside
            // GOAWAY (NO_ERROR) first, then the answer on stream 1: HEADERS, DATA.
            #expect(frames.first?.type == 0x07 && frames.first?.code == 0, "\(frames)")
            #expect(frames.contains { $0.type == 0x01 && $0.stream == 1 })
            #expect(frames.contains { $0.type == 0x00 && $0.stream == 1 })
            #expect(received.data.range(of: Data("Hello Shawn!".utf8)) != nil)
        }
    }

    @Test func anIdleKeepAliveConnectionDoesNotHoldTheServer() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], configure: { $0.drainTimeout = .seconds(30) }) { (harness: ReplayHarness) async throws in
            let socket = try await IdleClient.connect(port: harness.server.port)
            defer { socket.close() }
            let stopping = ContinuousClock.now
            try await harness.server.shutdown()
            #expect(ContinuousClock.now - stopping < .seconds(5), "an idle connection closes at once")
        }
    }
}

/// A client that connects and sends one request, then keeps the connection open without a word.
private struct IdleClient {
    let handle: FileHandle
    let process: Process

    static func connect(port: Int) async throws -> IdleClient {
        // Python keeps a kept-alive HTTP/1.1 connection open after its first answer, until stdin closes.
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import http.client, sys
            c = http.client.HTTPConnection("127.0.0.1", \(port)); c.request("GET", "/plaintext?name=Idle"); c.getresponse().read()
            print("answered", flush=True); sys.stdin.read()
            """]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        _ = output.fileHandleForReading.availableData  // "answered": the connection is open and idle
        return IdleClient(handle: input.fileHandleForWriting, process: process)
    }

    func close() {
        try? handle.close()
        process.waitUntilExit()
    }
}
