import Foundation
import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// Hand-written gRPC stubs (SPEC 12): messages and trailers, and the HTTP/2 faults, as grpcio hears them.
@Suite struct GRPCStubTests {
    static let stubs = #"""
    {"version": 1, "stubs": [
      {"request": {"method": "POST", "path": "/demo.Greeter/SayHello"},
       "response": {"grpc": [{"base64": "aGk="}, {"base64": "dGhlcmU="}], "trailers": {"grpc-status": ["0"], "x-stub": ["yes"]}}},
      {"request": {"path": "/demo.Greeter/Denied"},
       "response": {"grpc": [], "trailers": {"grpc-status": ["7"], "grpc-message": ["not you"]}}},
      {"request": {"path": "/demo.Greeter/Reset"}, "response": {"fault": "rst-stream"}},
      {"request": {"path": "/demo.Greeter/Gone"}, "response": {"fault": "goaway"}}
    ]}
    """#

    @Test(.requires(.grpcio)) func stubsAnswerWithMessagesAndTrailersAndBreakStreamsAndConnections() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Self.stubs, named: "stubs.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let script = """
            import grpc
            channel = grpc.insecure_channel("127.0.0.1:\(harness.server.port)")
            for method in ["SayHello", "Denied", "Reset", "Gone", "SayHello"]:
                call = channel.unary_stream("/demo.Greeter/" + method)(b"x", timeout=\(Deadlines.clientCall))
                try:
                    messages = " ".join(message.decode() for message in call)
                    print(method, messages, call.code().name, dict(call.trailing_metadata()).get("x-stub"))
                except grpc.RpcError as error:
                    print(method, error.code().name, error.details())
            """
            let result = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", script])
            let lines = result.text.split(separator: "\n").map(String.init)
            #expect(lines.count == 5, "\(result.text) \(result.error)")
            guard lines.count == 5 else { return }
            #expect(lines[0] == "SayHello hi there OK yes")
            #expect(lines[1] == "Denied PERMISSION_DENIED not you")
            #expect(lines[2].hasPrefix("Reset INTERNAL") && lines[2].contains("RST_STREAM"), "\(lines[2])")
            #expect(lines[3].hasPrefix("Gone UNAVAILABLE"), "\(lines[3])")
            #expect(lines[4] == "SayHello hi there OK yes", "the channel connects again after the GOAWAY")
        }
    }

    @Test(.requires(.grpcio)) func aCallOverTheBodyLimitEndsWithResourceExhaustedAndTheConnectionGoesOn() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Self.stubs, named: "stubs.json", in: directory)
        try await ReplayHarness.run(files: [file], configure: { $0.maxBodySize = 100 }) { (harness: ReplayHarness) async throws in
            // Three messages of 65 bytes framed: the second passes the limit of 100 bytes.
            let script = """
            import grpc
            channel = grpc.insecure_channel("127.0.0.1:\(harness.server.port)")
            try:
                channel.stream_unary("/demo.Greeter/SayHello")(iter([b"x" * 60] * 3), timeout=\(Deadlines.clientCall))
                print("answered")
            except grpc.RpcError as error:
                print(error.code().name, error.details())
            call = channel.unary_stream("/demo.Greeter/SayHello")(b"x", timeout=\(Deadlines.clientCall))
            print(" ".join(message.decode() for message in call), call.code().name)
            """
            let result = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["python3", "-c", script])
            let lines = result.text.split(separator: "\n").map(String.init)
            #expect(lines == ["RESOURCE_EXHAUSTED the request body is over the limit of 100 bytes (--max-body)", "hi there OK"],
                    "\(result.text) \(result.error)")
        }
    }
}
