import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import TapedeckGRPC
import TapedeckTestSupport
import TapedeckGRPCTesting
import TapedeckTesting
import Testing

/// grpc-swift 2, a gRPC client no one here wrote, against the `tapedeck` command (SPEC 12): the
/// four call kinds and an error, made through `tapedeck record` in front of the live grpcio
/// service (`scripts/grpc_upstream.py`), then against `tapedeck replay` of what was recorded,
/// hear exactly what they heard from the live service. Messages are raw bytes: no generated code.
@Suite struct GRPCSwiftClientTests {
    /// Messages as their bytes.
    struct RawBytes: MessageSerializer, MessageDeserializer {
        func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
        func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> [UInt8] {
            serializedMessageBytes.withUnsafeBytes { Array($0) }
        }
    }

    private static func method(_ name: String) -> MethodDescriptor {
        MethodDescriptor(fullyQualifiedService: "demo.Greeter", method: name)
    }

    private static func text(_ messages: [[UInt8]]) -> String {
        messages.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
    }

    /// One line per call over HTTP/2 to 127.0.0.1:`port`.
    private func calls(port: Int) async throws -> [String] {
        try await calls(transport: try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext))
    }

    /// One line per call: what came back, the status, and the x- metadata.
    private func calls(transport: some ClientTransport) async throws -> [String] {
        try await withGRPCClient(transport: transport) { client in
            var lines: [String] = []
            let options = CallOptions.defaults
            lines.append(try await client.unary(request: ClientRequest(message: Array("Ada".utf8)), descriptor: Self.method("SayHello"),
                                                serializer: RawBytes(), deserializer: RawBytes(), options: options) { response in
                "unary \(Self.text([try response.message])) initial[\(response.metadata.xEntries)] trailing[\(response.trailingMetadata.xEntries)]"
            })
            lines.append(try await client.serverStreaming(request: ClientRequest(message: Array("Ada".utf8)), descriptor: Self.method("SayHellos"),
                                                          serializer: RawBytes(), deserializer: RawBytes(), options: options) { response in
                var messages: [[UInt8]] = []
                for try await message in response.messages { messages.append(message) }
                return "server-streaming \(Self.text(messages))"
            })
            let pieces = ["a", "bb", "ccc"]
            lines.append(try await client.clientStreaming(
                request: StreamingClientRequest { writer in for piece in pieces { try await writer.write(Array(piece.utf8)) } },
                descriptor: Self.method("Collect"), serializer: RawBytes(), deserializer: RawBytes(), options: options) { response in
                "client-streaming \(Self.text([try response.message]))"
            })
            lines.append(try await client.bidirectionalStreaming(
                request: StreamingClientRequest { writer in for word in ["one", "two"] { try await writer.write(Array(word.utf8)) } },
                descriptor: Self.method("Chat"), serializer: RawBytes(), deserializer: RawBytes(), options: options) { response in
                var messages: [[UInt8]] = []
                for try await message in response.messages { messages.append(message) }
                return "bidirectional \(Self.text(messages))"
            })
            lines.append(try await client.unary(request: ClientRequest(message: Array("Bob".utf8)), descriptor: Self.method("Fail"),
                                                serializer: RawBytes(), deserializer: RawBytes(), options: options) { response in
                switch response.accepted.flatMap({ $0.message }) {
                case .success: return "error call succeeded"
                case .failure(let error):
                    return "error \(error.code) \(error.message) trailing[\(error.metadata.xEntries)]"
                }
            })
            return lines
        }
    }

    @Test(.requires(.grpcio)) func allFourCallKindsRecordAndReplayForGRPCSwift() async throws {
        let upstream = try ExampleUpstream(script: "scripts/grpc_upstream.py", arguments: [])
        defer { upstream.stop() }
        let live = try await calls(port: Int(upstream.authority.split(separator: ":").last!)!)
        #expect(live == ["unary hello:Ada initial[x-greeter=py] trailing[x-served-by=grpcio]", "server-streaming Ada#0 Ada#1 Ada#2",
                         "client-streaming a+bb+ccc", "bidirectional ONE TWO",
                         "error notFound no greeting for Bob trailing[x-reason=missing]"])

        let directory = TestFiles.folder.appending(path: "tapedeck-grpc-swift-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cassette = directory.appending(path: "greeter.json")
        let home = ["TAPEDECK_HOME": directory.appending(path: "home").path]

        let recorder = try TapedeckProcess(["record", "--port", "0", "--target", upstream.baseURL, cassette.path], environment: home)
        let recordingPort = try recorder.waitUntilListening()
        let proxied = try await calls(port: recordingPort)
        recorder.signal(SIGINT)
        #expect(recorder.waitForExit() == 0, "\(recorder.standardError())")
        #expect(proxied == live)

        let replayer = try TapedeckProcess(["replay", "--port", "0", cassette.path], environment: home)
        defer { _ = replayer.stop() }
        let replayed = try await calls(port: try replayer.waitUntilListening())
        #expect(replayed == live)

        // The same cassette in process (TapedeckGRPC): no socket, the same answers.
        let inProcess = try await calls(transport: CassetteGRPCTransport(cassette: cassette))
        #expect(inProcess == live)
        // A call nothing matches: UNIMPLEMENTED with the replay server's diagnosis.
        let miss = try await withGRPCClient(transport: try CassetteGRPCTransport(cassette: cassette)) { client in
            try await client.unary(request: ClientRequest(message: Array("Zed".utf8)), descriptor: Self.method("SayHello"),
                                   serializer: RawBytes(), deserializer: RawBytes(), options: .defaults) { response in
                response.accepted.flatMap { $0.message }
            }
        }
        guard case .failure(let error) = miss else {
            Issue.record("a call nothing matches was answered: \(miss)")
            return
        }
        #expect(error.code == .unimplemented)

        // Recorded in process through grpc-swift's HTTP/2 transport, into a cassette that the
        // replay server and the in-process transport both play as the live service answered.
        let inProcessCassette = directory.appending(path: "in-process.json")
        let upstreamPort = Int(upstream.authority.split(separator: ":").last!)!
        let recording = try RecordingGRPCTransport(
            live: try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: upstreamPort), transportSecurity: .plaintext),
            cassette: inProcessCassette, mode: .all, environment: [:])
        #expect(try await calls(transport: recording) == live)
        try recording.flush()
        #expect(try await calls(transport: CassetteGRPCTransport(cassette: inProcessCassette)) == live)
        let replayingInProcessRecording = try TapedeckProcess(["replay", "--port", "0", inProcessCassette.path], environment: home)
        defer { _ = replayingInProcessRecording.stop() }
        #expect(try await calls(port: try replayingInProcessRecording.waitUntilListening()) == live)
        #expect(error.message == "no recording matched /demo.Greeter/SayHello; nearest #0 in \(cassette.path): "
                + "recorded 8 bytes, received 8; first difference at byte 5", "\(error.message)")
    }

    /// The test helpers (`.cassette(...)` and `useCassette`) give a gRPC transport on the test's
    /// cassette: recording through the live transport in a recording mode, replaying with the
    /// test's own playback state otherwise, so unplayed calls are reported as requests are.
    @Test(.requires(.grpcio)) func aTestCassetteRecordsAndReplaysGRPCCalls() async throws {
        let upstream = try ExampleUpstream(script: "scripts/grpc_upstream.py", arguments: [])
        defer { upstream.stop() }
        let upstreamPort = Int(upstream.authority.split(separator: ":").last!)!
        let live = try await calls(port: upstreamPort)
        let directory = TestFiles.folder.appending(path: "tapedeck-grpc-trait-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = try CassetteLocation(name: "greeter", directory: directory, filePath: #filePath, environment: [:])

        let recording = try TestCassette(location: location, mode: .all, environment: [:])
        let recorded = try await TestCassette.$current.withValue(recording) {
            try await calls(transport: try TestCassette.grpcTransport(
                live: try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: upstreamPort), transportSecurity: .plaintext)))
        }
        #expect(recorded == live)
        try recording.finish()

        upstream.stop()
        let replaying = try TestCassette(location: location, mode: .replay, environment: [:])
        #expect(replaying.unplayedInteractions().count == 5)
        var built = false
        let replayed = try await TestCassette.$current.withValue(replaying) {
            try await calls(transport: try TestCassette.grpcTransport(live: { () throws -> HTTP2ClientTransport.Posix in
                built = true
                return try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: upstreamPort), transportSecurity: .plaintext)
            }()))
        }
        #expect(replayed == live)
        #expect(!built, "no live transport is made when replaying")
        #expect(replaying.unplayedInteractions().isEmpty, "the calls count as played")
        #expect(throws: TestCassetteMissingTrait.self) {
            try TestCassette.grpcTransport(live: try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: 1), transportSecurity: .plaintext))
        }
    }
}
