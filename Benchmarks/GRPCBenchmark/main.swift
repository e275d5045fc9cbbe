// gRPC replay benchmark (the issue "The connector speaks gRPC and WebSocket too"): the cost of a
// replayed unary call in process (TapedeckGRPC's CassetteGRPCTransport) against the same call
// through `tapedeck replay` over 127.0.0.1 with grpc-swift's HTTP/2 transport, in the same run,
// in alternating rounds, compared by medians. Goal: at least 20 times cheaper in process.
//
//     scripts/bench-grpc.sh [CALLS] [ROUNDS]
//
// The same GRPCClient code, raw-bytes serializers and cassette in both; the replay server is the
// release `tapedeck` binary given as --tapedeck.
import Foundation
import GRPCCore
import GRPCInProcessTransport
import GRPCNIOTransportHTTP2Posix
import Tapedeck
import TapedeckGRPC

struct RawBytes: MessageSerializer, MessageDeserializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
    func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> [UInt8] {
        serializedMessageBytes.withUnsafeBytes { Array($0) }
    }
}

let cassetteText = #"""
{"version": 1, "interactions": [{
  "recordedAt": "2026-11-21T10:00:00.000Z", "httpVersion": "2",
  "request": {"method": "POST", "url": "http://greeter.test/demo.Greeter/SayHello",
              "headers": {"content-type": ["application/grpc"], "te": ["trailers"]},
              "body": {"grpc": [{"base64": "CgNBZGE=", "compressed": false}]}},
  "response": {"status": 200, "headers": {"content-type": ["application/grpc"], "x-greeter": ["bench"]},
               "body": {"grpc": [{"base64": "CgtIZWxsbywgQWRhIQ=="}]},
               "trailers": {"grpc-status": ["0"], "grpc-message": [""]}}
}]}
"""#

/// Microseconds per call over `calls` unary calls made one after another on one client.
func microsecondsPerCall(_ transport: some ClientTransport, calls: Int) async throws -> Double {
    try await withGRPCClient(transport: transport) { client in
        let descriptor = MethodDescriptor(fullyQualifiedService: "demo.Greeter", method: "SayHello")
        let message = [UInt8]([0x0a, 0x03, 0x41, 0x64, 0x61])
        func call() async throws {
            _ = try await client.unary(request: ClientRequest(message: message), descriptor: descriptor,
                                       serializer: RawBytes(), deserializer: RawBytes(), options: .defaults) { try $0.message }
        }
        for _ in 0..<100 { try await call() }  // warm up: connection, allocations
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<calls { try await call() }
        let elapsed = start.duration(to: clock.now)
        return (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(calls)
    }
}

/// The floor any in-process transport meets through GRPCClient: grpc-swift's own
/// InProcessTransport with a service that answers the same message at once.
struct FixedGreeter: RegistrableRPCService {
    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(forMethod: MethodDescriptor(fullyQualifiedService: "demo.Greeter", method: "SayHello"),
                               deserializer: RawBytes(), serializer: RawBytes()) { request, _ in
            for try await _ in request.messages {}
            return StreamingServerResponse(single: ServerResponse(message: Array("\u{0a}\u{0b}Hello, Ada!".utf8)))
        }
    }
}

func microsecondsPerCallInProcessFloor(calls: Int) async throws -> Double {
    let inProcess = InProcessTransport()
    return try await withGRPCServer(transport: inProcess.server, services: [FixedGreeter()]) { _ in
        try await microsecondsPerCall(inProcess.client, calls: calls)
    }
}

/// Tapedeck's own share of an in-process call: the transport's stream driven directly (metadata,
/// the message, finish, every response part read), without GRPCClient around it; connected
/// first, as GRPCClient connects it.
func microsecondsPerStream(_ transport: CassetteGRPCTransport, calls: Int) async throws -> Double {
    let connection = Task { try await transport.connect() }
    defer {
        transport.beginGracefulShutdown()
        connection.cancel()
    }
    let descriptor = MethodDescriptor(fullyQualifiedService: "demo.Greeter", method: "SayHello")
    func call() async throws {
        try await transport.withStream(descriptor: descriptor, options: .defaults) { stream, _ in
            try await stream.outbound.write(.metadata([:]))
            try await stream.outbound.write(.message([0x0a, 0x03, 0x41, 0x64, 0x61]))
            await stream.outbound.finish()
            for try await _ in stream.inbound {}
        }
    }
    for _ in 0..<100 { try await call() }
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<calls { try await call() }
    let elapsed = start.duration(to: clock.now)
    return (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(calls)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let arguments = CommandLine.arguments
func argument(_ name: String) -> String? { arguments.firstIndex(of: name).map { arguments[$0 + 1] } }
let calls = argument("--calls").flatMap(Int.init) ?? 5000
let rounds = argument("--rounds").flatMap(Int.init) ?? 5
guard let tapedeck = argument("--tapedeck") else {
    print("usage: tapedeck-grpc-bench --tapedeck PATH [--calls N] [--rounds R]")
    exit(2)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tapedeck-grpc-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let cassette = folder.appendingPathComponent("greeter.json")
try Data(cassetteText.utf8).write(to: cassette)

// `--profile-in-process` and `--profile-stream`: only the in-process calls (through GRPCClient, or
// the transport's stream alone), no server, for a profiler
// (`perf record -g tapedeck-grpc-bench --tapedeck - --profile-stream --calls 50000`).
if arguments.contains("--profile-in-process") {
    print(String(format: "in process %.1f µs/call", try await microsecondsPerCall(CassetteGRPCTransport(cassette: cassette), calls: calls)))
    exit(0)
}
if arguments.contains("--profile-stream") {
    print(String(format: "the transport's stream alone %.1f µs/call", try await microsecondsPerStream(CassetteGRPCTransport(cassette: cassette), calls: calls)))
    exit(0)
}

// The replay server, on a free port; its first line names it.
let server = Process()
server.executableURL = URL(fileURLWithPath: tapedeck)
server.arguments = ["replay", cassette.path, "--port", "0", "--no-admin"]
server.environment = ["TAPEDECK_HOME": folder.appendingPathComponent("home").path]
let output = Pipe()
server.standardOutput = output
try server.run()
defer { server.terminate() }
var line = Data()
while !line.contains(0x0A) {
    let more = output.fileHandleForReading.availableData
    if more.isEmpty { break }
    line.append(more)
}
guard let port = String(decoding: line, as: UTF8.self).split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
    print("tapedeck replay did not start: \(String(decoding: line, as: UTF8.self))")
    exit(1)
}

var inProcess: [Double] = []
var overLoopback: [Double] = []
var floor: [Double] = []
for round in 0..<rounds {
    // Rotating which goes first, so none always meets a warmer machine.
    for turn in 0..<3 {
        switch (round + turn) % 3 {
        case 0:
            inProcess.append(try await microsecondsPerCall(CassetteGRPCTransport(cassette: cassette), calls: calls))
        case 1:
            let transport = try HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
            overLoopback.append(try await microsecondsPerCall(transport, calls: calls))
        default:
            floor.append(try await microsecondsPerCallInProcessFloor(calls: calls))
        }
    }
    print(String(format: "round %d: in process %.1f µs/call, tapedeck replay over 127.0.0.1 %.1f µs/call, grpc-swift's InProcessTransport %.1f µs/call",
                 round + 1, inProcess.last!, overLoopback.last!, floor.last!))
}
let ratio = median(overLoopback) / median(inProcess)
print(String(format: "median: in process %.1f µs/call, through tapedeck replay %.1f µs/call: in process is %.1f× cheaper (goal ≥ 20×: %@)",
             median(inProcess), median(overLoopback), ratio, ratio >= 20 ? "met" : "missed"))
let ownShare = try await microsecondsPerStream(CassetteGRPCTransport(cassette: cassette), calls: calls)
print(String(format: "Tapedeck's share of an in-process call (the transport's stream alone, no GRPCClient): %.1f µs/call", ownShare))
print(String(format: "floor: grpc-swift's own InProcessTransport and a service answering at once, %.1f µs/call (%.1f× cheaper than through tapedeck replay)",
             median(floor), median(overLoopback) / median(floor)))
