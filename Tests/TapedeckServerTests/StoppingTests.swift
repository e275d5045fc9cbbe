import Foundation
@_spi(Internals) import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// Stopping a server drains it (``TapedeckServer/shutdown()``): each connection finishes the answer
/// under way and then closes, saying so in its protocol's way. Real clients: curl, and HTTP/2
/// frames over a raw socket.
@Suite struct StoppingTests {
    /// Runs `body` against a recording proxy in front of an upstream whose `/held` answers wait for
    /// `release`, which stops the proxy while the answer is under way and then lets the upstream answer.
    private func whileAnAnswerIsHeld(_ body: (_ harness: RecordHarness, _ release: () async throws -> Void) async throws -> Void)
        async throws {
        let upstream = try await TestUpstream.start()
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await RecordHarness.run(settings: RecordSettings(cassette: directory.appending(path: "held.json"), target: upstream.target)) { harness in
            try await body(harness) {
                try await waitUntil { upstream.held.withLock { $0.count } == 1 }
                let stopping = Task { try await harness.server.shutdown() }
                // The listener closes as the connections are told the server is stopping. (A probe of
                // the port could reach another test's server given the same number meanwhile.)
                await harness.server.stoppedListening()
                upstream.releaseHeld()
                try await stopping.value
            }
        }
        try await upstream.stop()
    }

    @Test(.requires(.curl)) func anHTTP1AnswerUnderWayIsFinishedWithConnectionCloseBeforeTheServerStops() async throws {
        try await whileAnAnswerIsHeld { harness, release in
            async let answer = Curl.run(["--http1.1", "--include", "http://127.0.0.1:\(harness.server.port)/held"])
            try await release()
            let result = try await answer
            #expect(result.status == 0, "\(result.error)")
            #expect(result.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(result.text.lowercased().contains("connection: close\r\n"), "\(result.text)")
            #expect(result.text.hasSuffix("held answer"))
            // Asked of the server, not of its port, which a parallel test's server may have been given.
            #expect(!harness.server.isListening, "the server no longer listens")
        }
    }

    @Test func anHTTP2ConnectionSaysGoawayAtOnceAndFinishesItsStreamBeforeTheServerStops() async throws {
        try await whileAnAnswerIsHeld { harness, release in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            // GET /held on stream 1, END_STREAM | END_HEADERS.
            let request = HTTP2Frames.requestBlock(get: true, path: "/held")
            socket.send(HTTP2Frames.greeting + HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: 1, request))
            try await release()
            let received = await socket.read()
            #expect(received.ending == .closed, "the connection closes once its stream is done")
            let frames = HTTP2Frames.frames(in: received.data).filter { $0.type != 0x04 && $0.type != 0x08 }  // SETTINGS, WINDOW_UPDATE aside
            // GOAWAY (NO_ERROR) first, then the answer on stream 1: HEADERS, DATA.
            #expect(frames.first?.type == 0x07 && frames.first?.code == 0, "\(frames)")
            #expect(frames.contains { $0.type == 0x01 && $0.stream == 1 })
            #expect(frames.contains { $0.type == 0x00 && $0.stream == 1 })
            #expect(received.data.range(of: Data("held answer".utf8)) != nil)
        }
    }

    @Test func theInspectorsLiveStreamEndsWhenTheServerStops() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], configure: { $0.drainTimeout = .seconds(120) }) { (harness: ReplayHarness) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 150)
            socket.send("GET /__tapedeck/events HTTP/1.1\r\nHost: 127.0.0.1:\(harness.server.port)\r\nAccept: text/event-stream\r\n\r\n")
            while harness.responder.admin.inspector?.exchanges.events.listenerCount == 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await harness.server.shutdown()
            let received = await socket.read()
            let text = String(decoding: received.data, as: UTF8.self)
            #expect(received.ending == .closed)
            // Ended by the server (the last chunk), not cut when the drain gave up.
            #expect(text.hasSuffix("0\r\n\r\n"), "\(text)")
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosedAtOnce() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], configure: { $0.drainTimeout = .seconds(120) }) { (harness: ReplayHarness) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 150)
            socket.send("GET /plaintext?name=Shawn HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let answered = await socket.read { String(decoding: $0, as: UTF8.self).hasSuffix("Hello Shawn!") }
            #expect(answered.ending != .closed, "kept alive after its answer")
            let stopping = ContinuousClock.now
            try await harness.server.shutdown()
            let after = await socket.read()
            #expect(after.ending == .closed && after.data.isEmpty)
            // Closed as the server stopped, not when the 120 s drain gave up (a wide margin for a busy machine).
            #expect(ContinuousClock.now - stopping < .seconds(60))
        }
    }
}
