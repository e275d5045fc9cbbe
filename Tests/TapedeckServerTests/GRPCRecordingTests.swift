import Foundation
import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// gRPC recorded from a live grpcio service and replayed (SPEC section 12), with grpcio as the
/// client: `scripts/grpc_calls.py` makes a unary, a server-streaming, a client-streaming and a
/// bidirectional call, one compressed with gzip both ways and one that fails, and prints each answer's messages, status, details and
/// metadata. Through the recording proxy, and then from the replay server, it must print exactly
/// what it printed against the live service.
@Suite struct GRPCRecordingTests {
    /// What `scripts/grpc_calls.py` prints against the service at `authority`.
    private func calls(_ authority: String) async throws -> String {
        let script = ExampleUpstream.repositoryRoot.appending(path: "scripts/grpc_calls.py").path
        let result = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", script, authority])
        #expect(result.status == 0, "\(result.text) \(result.error)")
        return result.text
    }

    /// Runs `body` with the grpcio greeter service (`scripts/grpc_upstream.py`) and the path of a
    /// cassette named `name` in a folder of its own, both gone afterwards.
    private func withGreeter(cassette name: String, _ body: (ExampleUpstream, URL) async throws -> Void) async throws {
        let upstream = try ExampleUpstream(script: "scripts/grpc_upstream.py", arguments: [])
        defer { upstream.stop() }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(upstream, directory.appending(path: name))
    }

    @Test(.requires(.grpcio)) func allFourCallKindsAndAnErrorRecordAndReplayExactly() async throws {
        try await withGreeter(cassette: "greeter.json") { upstream, file in
            let live = try await calls(upstream.authority)
            #expect(live.split(separator: "\n").count == 6, "\(live)")
            #expect(live.contains("unary 68656c6c6f3a416461 OK '' initial[x-greeter=py] trailing[x-served-by=grpcio]"), "\(live)")
            #expect(live.contains("error  NOT_FOUND 'no greeting for Bob' initial[] trailing[x-reason=missing]"), "\(live)")

            try await RecordHarness.run(settings: RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL))) { harness in
                let proxied = try await calls("127.0.0.1:\(harness.server.port)")
                #expect(proxied == live, "the client hears through the proxy what it heard live")
                try await waitUntil { harness.responder.recorder.interactionCount == 6 }
            }

            let cassette = try CassetteCodec().load(file)
            #expect(cassette.interactions.allSatisfy { $0.httpVersion == "2" }, "forwarded over HTTP/2, as the client spoke")
            let byPath = Dictionary(uniqueKeysWithValues: cassette.interactions.map { (RequestTarget($0.request.url).path, $0) })
            let collect = try #require(byPath["/demo.Greeter/Collect"])
            #expect(GRPCMessage.split(collect.request.body.data)?.map(\.bytes) == [Data("a".utf8), Data("bb".utf8), Data("ccc".utf8)])
            // The streamed answer's three messages are held as timed chunks of one message each. (They
            // came 20 ms apart, but a busy proxy may read them in one go: only their order is certain.)
            let hellos = try #require(byPath["/demo.Greeter/SayHellos"]?.chunks)
            #expect(hellos.map { GRPCMessage.split($0.data)?.map(\.bytes) } == ["Ada#0", "Ada#1", "Ada#2"].map { [Data($0.utf8)] })
            #expect(hellos.map(\.atMs) == hellos.map(\.atMs).sorted(), "\(hellos.map(\.atMs))")
            // Compressed messages are kept decompressed and flagged, both ways.
            let squeezed = try #require(byPath["/demo.Greeter/Squeeze"])
            let asked = try #require(GRPCMessage.split(squeezed.request.body.data))
            let answered = try #require(GRPCMessage.split(squeezed.response.body.data))
            #expect(asked.map(\.compressed) == [true] && asked.first?.bytes == Data(String(repeating: "squeeze me ", count: 20).utf8))
            #expect(answered.map(\.compressed) == [true] && answered.first?.bytes.count == 11_000)
            #expect(squeezed.response.headers["grpc-encoding"] == "gzip")
            let hello = try #require(byPath["/demo.Greeter/SayHello"])
            #expect(hello.chunks == nil, "a single message has nothing to pace")
            #expect(hello.response.trailers?["x-served-by"] == "grpcio")
            #expect(hello.response.headers["x-greeter"] == "py")
            let failed = try #require(byPath["/demo.Greeter/Fail"])
            #expect(failed.response.trailers?["grpc-status"] == "5", "a trailers-only answer keeps its status as trailers")
            #expect(failed.response.headers.map(\.name) == ["content-type"])
            #expect(cassette.interactions.compactMap { GRPCCall.statusProblem(of: $0.response) } == [],
                    "every recorded status reads as the client read it (what lint checks)")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(#""grpc" : ["#), "bodies are stored as message lists")
            #expect(text.contains(#""atMs" : "#) && !text.contains(#""chunks""#), "a streamed answer's messages carry their times")

            try await ReplayHarness.run(files: [file]) { harness in
                let replayed = try await calls("127.0.0.1:\(harness.server.port)")
                #expect(replayed == live, "the replay answers as the live service did")
            }
        }
    }

    /// A `--secret` placeholder inside a message goes to the service as the live value, and the live
    /// value in its answer is kept in the cassette as the placeholder, each message framed again
    /// with its new length. On the code before, the value was replaced across the framing: the
    /// service got a length prefix that lied, and the call failed.
    /// The same with the client compressing its message (`grpc-encoding: gzip`): on the code
    /// before, the compressed message went upstream as it came, the placeholder inside it.
    @Test(.requires(.grpcio), arguments: [false, true])
    func aSecretInsideAMessageIsRevealedToTheServiceAndConcealedInTheCassette(compressed: Bool) async throws {
        try await withGreeter(cassette: "secret-\(compressed).json") { upstream, file in
            var settings = RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL))
            settings.playback.secrets = try Secrets(["TEAM_TOKEN": "tok-live-123456"])
            try await RecordHarness.run(settings: settings) { harness in
                let script = """
                import grpc
                channel = grpc.insecure_channel("127.0.0.1:\(harness.server.port)")
                compression = grpc.Compression.Gzip if \(compressed ? "True" : "False") else None
                print(channel.unary_unary("/demo.Greeter/SayHello")(b"<TEAM_TOKEN>", timeout=\(20 * Deadlines.scale), compression=compression).decode())
                """
                let result = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", script])
                #expect(result.text == "hello:tok-live-123456\n", "the service got the live value: \(result.text) \(result.error)")
                try await waitUntil { harness.responder.recorder.interactionCount == 1 }
            }
            let interaction = try #require(try CassetteCodec().load(file).interactions.first)
            #expect(GRPCMessage.split(interaction.request.body.data)?.map(\.bytes) == [Data("<TEAM_TOKEN>".utf8)])
            #expect(interaction.request.headers["grpc-encoding"] == (compressed ? "gzip" : nil), "the client compressed its message, or not")
            #expect(GRPCMessage.split(interaction.response.body.data)?.map(\.bytes) == [Data("hello:<TEAM_TOKEN>".utf8)])
            #expect(!(try String(contentsOf: file, encoding: .utf8)).contains("tok-live"), "no live value in the cassette")
        }
    }

    /// A message whose content is itself gzip data (a file sent over gRPC), compressed again by the
    /// client's `grpc-encoding: gzip`, is kept as the client meant it. On the code before, the
    /// proxy decompressed the request's messages to match them, and the recorder a second time:
    /// the cassette held the file inflated, and replay matched a request nobody sends.
    @Test(.requires(.grpcio)) func aMessageThatIsGzipDataIsKeptAsSentUnderGRPCCompression() async throws {
        // The client sends a gzip file (stored blocks, so gRPC's gzip shrinks it again) and checks the answer.
        let client = { (port: Int) in """
            import grpc, gzip
            channel = grpc.insecure_channel("127.0.0.1:\(port)")
            payload = gzip.compress(b"a file's content " * 8, compresslevel=0, mtime=0)
            answer = channel.unary_unary("/demo.Greeter/SayHello")(payload, timeout=\(20 * Deadlines.scale), compression=grpc.Compression.Gzip)
            assert answer == b"hello:" + payload, answer
            print(payload.hex())
            """
        }
        try await withGreeter(cassette: "gzip-file.json") { upstream, file in
            var sent = ""
            try await RecordHarness.run(settings: RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL))) { harness in
                let result = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", client(harness.server.port)])
                #expect(result.status == 0, "the service got the file as sent: \(result.error)")
                sent = result.text.trimmingCharacters(in: .whitespacesAndNewlines)
                try await waitUntil { harness.responder.recorder.interactionCount == 1 }
            }
            let interaction = try #require(try CassetteCodec().load(file).interactions.first)
            let kept = try #require(GRPCMessage.split(interaction.request.body.data))
            #expect(kept.map { $0.bytes.hexadecimal } == [sent], "the file, not its content")
            #expect(kept.first?.compressed == true)
            try await ReplayHarness.run(files: [file]) { harness in
                let replayed = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", client(harness.server.port)])
                #expect(replayed.status == 0, "the same call matches its recording: \(replayed.error)")
            }
        }
    }

    /// What `scripts/grpc_pingpong.py` prints: a chat whose client waits for each answer, or sends all first.
    private func chat(_ authority: String, _ options: String...) async throws -> String {
        let script = ExampleUpstream.repositoryRoot.appending(path: "scripts/grpc_pingpong.py").path
        let result = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", script] + options + [authority])
        #expect(result.status == 0, "\(result.text) \(result.error)")
        return result.text
    }

    /// A bidirectional client that waits for each answer before its next message (a chat) cannot
    /// wait for the recording proxy to have its whole request: the call goes upstream as it comes
    /// (`RecordingMode.decideStreaming`), and the cassette gets it whole once it ends, with the
    /// order of its messages; replay plays it back as the client speaks. On the code before, the
    /// call hung until its deadline, through the proxy and from the replay server.
    @Test(.requires(.grpcio)) func aBidirectionalClientThatWaitsForEachAnswerIsRecordedAsItSpeaks() async throws {
        try await withGreeter(cassette: "chat.json") { upstream, file in
            let live = try await chat(upstream.authority)
            #expect(live == "chat PING PONG OK\n")

            try await RecordHarness.run(settings: RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL))) { harness in
                let proxied = try await chat("127.0.0.1:\(harness.server.port)")
                #expect(proxied == live, "the client hears each answer through the proxy before it sends its next message")
                try await waitUntil { harness.responder.recorder.interactionCount == 1 }
            }
            let recorded = try #require(try CassetteCodec().load(file).interactions.first)
            #expect(RequestTarget(recorded.request.url).path == "/demo.Greeter/Chat")
            #expect(GRPCMessage.split(recorded.request.body.data)?.map(\.bytes) == [Data("ping".utf8), Data("pong".utf8)])
            let answers = (recorded.chunks ?? []).flatMap { GRPCMessage.split($0.data) ?? [] }.map(\.bytes)
            #expect(answers == [Data("PING".utf8), Data("PONG".utf8)])
            #expect(recorded.response.trailers?["grpc-status"] == "0")
            // The cassette keeps the conversation's order: each request message's time counts from the
            // request's start, as the first response byte's does, and "pong" went after "PING" came back.
            let requestTimes = try #require(recorded.request.body.messageTimes)
            let firstByte = try #require(recorded.timing?.firstByteMs)
            let answerTimes = (recorded.chunks ?? []).map(\.atMs)
            #expect(requestTimes.count == 2 && answerTimes.count == 2, "\(requestTimes) \(answerTimes)")
            #expect(requestTimes[0] <= firstByte, "\(requestTimes) \(firstByte)")
            #expect(requestTimes[1] >= firstByte + answerTimes[0], "\(requestTimes) \(firstByte) \(answerTimes)")

            // The replay server plays the chat as the client speaks (GRPCCallReplay): a client that waits
            // for each answer, and one that sends all first, both get it; one that says something else
            // after the first answer gets UNIMPLEMENTED naming where it left the recording.
            try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
                let address = "127.0.0.1:\(harness.server.port)"
                #expect(try await chat(address) == live)
                #expect(try await chat(address, "--all-at-once") == live)
                let off = try await chat(address, "--second", "other")
                #expect(off == "chat PING UNIMPLEMENTED 'the call left its recording of /demo.Greeter/Chat: message 2 differs from the recorded one'\n")
                #expect(harness.responder.journal.document().entries.count == 3, "each call is played and noted once")
            }
        }
    }

    /// A client that cancels a server stream without end (a watch) and keeps its connection resets
    /// the upstream's stream through the proxy at once: the exchange ends as the client's leaving
    /// and is not recorded. Before, the upstream's stream stayed open, its messages read for
    /// nobody, until the client's connection closed (or, for a client that keeps it, forever); the
    /// exchange then ended as the upstream's closing, which is what the log line tells apart.
    @Test(.requires(.grpcio)) func aWatchTheClientCancelsIsResetUpstreamAtOnce() async throws {
        let log = CapturedLog.Lines()
        try await withGreeter(cassette: "watch.json") { upstream, file in
            try await RecordHarness.run(settings: RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL)),
                                        logger: CapturedLog.logger(into: log)) { harness in
                let script = ExampleUpstream.repositoryRoot.appending(path: "scripts/grpc_watch.py").path
                let watch = try await Subprocess.run(executable: "/usr/bin/env",
                                                     arguments: ["python3", script, "2", "127.0.0.1:\(harness.server.port)"])
                #expect(watch.text == "watch tick#0 tick#1 CANCELLED hello:again\n", "\(watch.text) \(watch.error)")
                try await waitUntil { harness.responder.exchangesUnderWay == 0 }
                #expect(harness.responder.exchangesUnderWay == 0, "the upstream's stream is still read")
                let notRecorded = log.starting(with: "not recorded: POST")
                #expect(notRecorded.count == 1 && notRecorded[0].contains("/demo.Greeter/Watch: the client left"), "\(log.all)")
            }
            let recorded = try CassetteCodec().load(file).interactions.map(\.request.url)
            #expect(recorded == ["\(upstream.baseURL)/demo.Greeter/SayHello"], "only the hello after it")
        }
    }

    /// A chat's client that goes away mid-call: the upstream's stream is reset with it, nothing is
    /// recorded, the log blames the client (not the upstream, whose stream the proxy reset), and
    /// the proxy goes on serving (the next chat is recorded whole).
    @Test(.requires(.grpcio)) func aChatWhoseClientLeavesMidCallIsNotRecordedAndTheProxyGoesOn() async throws {
        let log = CapturedLog.Lines()
        try await withGreeter(cassette: "chat.json") { upstream, file in
            try await RecordHarness.run(settings: RecordSettings(cassette: file, target: try ReverseProxyTarget(upstream.baseURL)),
                                        logger: CapturedLog.logger(into: log)) { harness in
                let left = try await chat("127.0.0.1:\(harness.server.port)", "--leave")
                #expect(left.hasPrefix("chat PING CANCELLED"), "\(left)")
                try await waitUntil { !log.starting(with: "not recorded: POST").isEmpty }
                let notRecorded = log.starting(with: "not recorded: POST")
                #expect(notRecorded.count == 1 && notRecorded[0].contains("the client left before the whole answer was written to it"),
                        "\(log.all)")
                let whole = try await chat("127.0.0.1:\(harness.server.port)")
                #expect(whole == "chat PING PONG OK\n")
                try await waitUntil { harness.responder.recorder.interactionCount == 1 }
                #expect(harness.responder.exchangesUnderWay == 0, "the call that was left is over too")
            }
            let recorded = try CassetteCodec().load(file).interactions
            #expect(recorded.count == 1)
            #expect(GRPCMessage.split(recorded.first?.request.body.data ?? Data())?.count == 2, "only the whole chat")
        }
    }
}
