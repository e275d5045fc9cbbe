import Foundation
@_spi(Internals) import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// A real gRPC client (grpcio, from PyPI) against the replay server over HTTP/2 (SPEC section 12):
/// a recorded unary call is answered with its message and `grpc-status` trailer, and a call
/// nothing matches gets `UNIMPLEMENTED` with the nearest recording named, never an HTTP 599.
@Suite struct GRPCReplayTests {
    /// `/demo.Greeter/SayHello` with the message `0a03416461` (field 1: "Ada"), answered `0a0b` + "Hello, Ada!".
    static let cassette = #"""
    {"version": 1, "interactions": [{
      "recordedAt": "2026-11-21T10:00:00.000Z", "httpVersion": "2",
      "request": {"method": "POST", "url": "http://greeter.test/demo.Greeter/SayHello",
                  "headers": {"content-type": ["application/grpc"], "te": ["trailers"]},
                  "body": {"grpc": [{"base64": "CgNBZGE=", "compressed": false}]}},
      "response": {"status": 200, "headers": {"content-type": ["application/grpc"]},
                   "body": {"grpc": [{"base64": "CgtIZWxsbywgQWRhIQ=="}]},
                   "trailers": {"grpc-status": ["0"], "grpc-message": [""]}}
    }]}
    """#

    /// Calls `/demo.Greeter/SayHello` with raw message bytes (no generated code: grpcio passes bytes
    /// through when no serializer is given); prints the answer's hex, or the status and details.
    private func call(_ port: Int, messageHex: String, timeout: Double = 10) async throws -> String {
        let script = """
        import grpc, sys
        channel = grpc.insecure_channel("127.0.0.1:\(port)")
        say = channel.unary_unary("/demo.Greeter/SayHello")
        try:
            print("OK", say(bytes.fromhex("\(messageHex)"), timeout=\(timeout)).hex())
        except grpc.RpcError as error:
            print(error.code().name, error.details())
        """
        let result = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", script])
        #expect(result.status == 0, "\(result.error)")
        return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.requires(.grpcio)) func grpcioGetsTheRecordedAnswerAndUnimplementedForAMiss() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Self.cassette, named: "greeter.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let hello = try await call(harness.server.port, messageHex: "0a03416461")
            #expect(hello == "OK " + Data("\u{0a}\u{0b}Hello, Ada!".utf8).hexadecimal)

            let miss = try await call(harness.server.port, messageHex: "0a03426f62")
            #expect(miss.hasPrefix("UNIMPLEMENTED no recording matched /demo.Greeter/SayHello; nearest #0 in "), "\(miss)")
            #expect(harness.responder.unmatched.document().unmatched.count == 1, "the miss is diagnosed as any other")
        }
    }

    /// `--proto-descriptor-set` with the committed descriptors of `Tests/Fixtures/proto/greeter.proto`
    /// (compiled by protoc): the request matches as JSON by value, a miss names the differing field,
    /// and the inspector and `tapedeck inspect` show messages as JSON. The cassette keeps the bytes.
    @Test(.requires(.curl, .grpcio)) func aDescriptorSetShowsMessagesAsJSONInTheDiagnosisTheInspectorAndInspect() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Self.cassette, named: "greeter.json", in: directory)
        let descriptors = ExampleUpstream.repositoryRoot.appending(path: "Tests/Fixtures/proto/greeter.protoset").path
        let server = try TapedeckProcess(["replay", file.path, "--port", "0", "--proto-descriptor-set", descriptors],
                                         environment: ["TAPEDECK_HOME": directory.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()

        // Other bytes, the same message ("name" twice: the last one counts, as protobuf says) match by value.
        #expect(try await call(port, messageHex: "0a03426f620a03416461").hasPrefix("OK 0a0b"))
        let miss = try await call(port, messageHex: "0a03426f62")
        #expect(miss.hasPrefix("UNIMPLEMENTED "), "\(miss)")
        #expect(miss.contains("$[0].name") && miss.contains("Ada") && miss.contains("Bob"), "the diagnosis names the field: \(miss)")

        struct Listed: Decodable { struct Entry: Decodable { let id: Int; let outcome: String }; let exchanges: [Entry] }
        struct Shown: Decodable {
            struct Message: Decodable { struct Body: Decodable { let kind: String; let text: String?; let readBy: String? }; let body: Body }
            let request: Message
            let response: Message?
        }
        let base = "http://127.0.0.1:\(port)/__tapedeck/exchanges"
        let listed = try JSONDecoder().decode(Listed.self, from: try await Curl.run(["-sS", base]).output)
        let played = try #require(listed.exchanges.first { $0.outcome == "played" })
        let shown = try JSONDecoder().decode(Shown.self, from: try await Curl.run(["-sS", "\(base)/\(played.id)"]).output)
        #expect(shown.request.body.kind == "json" && shown.request.body.readBy == "proto-descriptor-set")
        #expect(shown.request.body.text == #"[{"name":"Ada"}]"#)
        #expect(shown.response?.body.text == #"[{"message":"Hello, Ada!"}]"#)

        let inspect = try await Subprocess.run(executable: try TapedeckBinary.locate().path,
                                               arguments: ["inspect", file.path, "--proto-descriptor-set", descriptors])
        #expect(inspect.text.contains("\n    request  [{\"name\":\"Ada\"}]\n    response [{\"message\":\"Hello, Ada!\"}]"), "\(inspect.text)")

        // A file that is not a descriptor set is refused at the start, saying so.
        let wrong = try await Subprocess.run(executable: try TapedeckBinary.locate().path,
                                             arguments: ["replay", file.path, "--port", "0", "--proto-descriptor-set", file.path])
        #expect(wrong.status != 0)
        #expect(wrong.error.contains("not a descriptor set"), "\(wrong.error)")
    }

    /// A server-streaming call: two messages 50 ms apart (their `atMs`), then the status trailer.
    static let streamingCassette = #"""
    {"version": 1, "interactions": [{
      "recordedAt": "2026-11-21T10:00:00.000Z", "httpVersion": "2",
      "request": {"method": "POST", "url": "http://greeter.test/demo.Greeter/SayHellos",
                  "headers": {"content-type": ["application/grpc"]}, "body": {"grpc": [{"base64": "CgNBZGE="}]}},
      "response": {"status": 200, "headers": {"content-type": ["application/grpc"]},
                   "body": {"grpc": [{"base64": "CgFB", "atMs": 0}, {"base64": "CgFC", "atMs": 50}]},
                   "trailers": {"grpc-status": ["0"]}}
    }]}
    """#

    @Test(.requires(.grpcio)) func aServerStreamingCallIsReplayedMessageByMessage() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Self.streamingCassette, named: "streaming.json", in: directory)
        var options = PlaybackOptions()
        options.latency = LatencyModel(.recorded)
        try await ReplayHarness.run(files: [file], options: options) { (harness: ReplayHarness) async throws in
            let script = """
            import grpc
            channel = grpc.insecure_channel("127.0.0.1:\(harness.server.port)")
            stream = channel.unary_stream("/demo.Greeter/SayHellos")(bytes.fromhex("0a03416461"), timeout=\(Deadlines.clientCall))
            print(" ".join(message.hex() for message in stream), stream.code().name)
            """
            let result = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", script])
            #expect(result.text.trimmingCharacters(in: .whitespacesAndNewlines) == "0a0141 0a0142 OK", "\(result.text) \(result.error)")
            // Under recorded latency the messages are paced by their atMs, as a stream's chunks are.
            let delays = harness.delays.storage.withLock { $0 }
            #expect(delays.map(\.chunks) == [[.zero, .milliseconds(50)]], "\(delays)")
        }
    }

    /// The recorded answer takes 2 s under fixed latency; a call whose `grpc-timeout` is 300 ms gets
    /// `DEADLINE_EXCEEDED` from the server at its deadline, as from a real server. nghttp (no
    /// deadline of its own) shows what the server sent; grpcio hears the same status.
    @Test(.requires(.nghttp, .grpcio)) func aCallWhoseDeadlinePassesGetsDeadlineExceeded() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Self.cassette, named: "greeter.json", in: directory)
        let message = directory.appending(path: "message.bin")
        try Data([0, 0, 0, 0, 5, 0x0A, 0x03, 0x41, 0x64, 0x61]).write(to: message)
        var options = PlaybackOptions()
        options.latency = LatencyModel(.fixed(milliseconds: 2000))
        try await ReplayHarness.run(files: [file], options: options) { (harness: ReplayHarness) async throws in
            let call = { (timeout: String) in
                try await Subprocess.run(executable: "/usr/bin/env", arguments: [
                    "nghttp", "-v", "-H", ":method: POST", "-H", "content-type: application/grpc", "-H", "te: trailers",
                    "-H", "grpc-timeout: \(timeout)", "-d", message.path, harness.base + "/demo.Greeter/SayHello"])
            }
            let late = try await call("300m")
            #expect(late.text.contains("grpc-status: 4") && late.text.contains("grpc-message: Deadline Exceeded"), "\(late.text)")
            #expect(!late.text.contains("recv DATA frame <length=18"), "no message after the deadline: \(late.text)")
            let inTime = try await call("5S")
            #expect(inTime.text.contains("grpc-status: 0") && inTime.text.contains("recv DATA frame <length=18"), "\(inTime.text)")
            let heard = try await self.call(harness.server.port, messageHex: "0a03416461", timeout: 0.3)
            #expect(heard.hasPrefix("DEADLINE_EXCEEDED"), "\(heard)")
        }
    }

    /// An answer recorded compressed (gzip) goes compressed to a client that takes gzip, plain to one that does not.
    static let compressedCassette = #"""
    {"version": 1, "interactions": [{
      "request": {"method": "POST", "url": "http://greeter.test/demo.Greeter/Squeeze", "headers": {"content-type": ["application/grpc"]},
                  "body": {"grpc": [{"base64": ""}]}},
      "response": {"status": 200, "headers": {"content-type": ["application/grpc"], "grpc-encoding": ["gzip"]},
                   "body": {"grpc": [{"base64": "%PLAIN%", "compressed": true}]}, "trailers": {"grpc-status": ["0"]}}
    }]}
    """#.replacingOccurrences(of: "%PLAIN%", with: Data(String(repeating: "squeeze ", count: 40).utf8).base64EncodedString())

    @Test(.requires(.nghttp, .grpcio)) func aCompressedAnswerIsCompressedAgainForAClientThatTakesIt() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Self.compressedCassette, named: "compressed.json", in: directory)
        let empty = directory.appending(path: "empty-message.bin")
        try Data([0, 0, 0, 0, 0]).write(to: empty)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let call = { (accepting: [String]) in
                try await Subprocess.run(executable: "/usr/bin/env", arguments: [
                    "nghttp", "-v", "-H", ":method: POST", "-H", "content-type: application/grpc", "-H", "te: trailers"]
                    + accepting + ["-d", empty.path, harness.base + "/demo.Greeter/Squeeze"])
            }
            let plain = try await call([])
            #expect(plain.text.contains("recv DATA frame <length=325") && !plain.text.contains("grpc-encoding"), "\(plain.text)")
            let squeezed = try await call(["-H", "grpc-accept-encoding: identity, gzip"])
            #expect(squeezed.text.contains("grpc-encoding: gzip") && !squeezed.text.contains("recv DATA frame <length=325"), "\(squeezed.text)")
            let script = """
            import grpc
            channel = grpc.insecure_channel("127.0.0.1:\(harness.server.port)")
            print(channel.unary_unary("/demo.Greeter/Squeeze")(b"", timeout=\(Deadlines.clientCall)).decode())
            """
            let heard = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", script])
            #expect(heard.text == String(repeating: "squeeze ", count: 40) + "\n", "\(heard.text) \(heard.error)")
        }
    }

    @Test func theGRPCMessageIsPercentEncodedAsGRPCRequires() {
        #expect(GRPCStatusText.percentEncoded("a b%c\u{e9}") == "a b%25c%C3%A9")
    }
}
