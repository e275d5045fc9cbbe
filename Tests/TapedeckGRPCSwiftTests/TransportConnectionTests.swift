import Foundation
import GRPCCore
import Tapedeck
import TapedeckGRPC
import Testing

/// The in-process transports hold a call until `connect()`, as grpc-swift's own transports queue
/// one: answered at once, a call could end `withGRPCClient`'s body before the client ran its
/// connections, and grpc-swift then fails the whole block with `clientIsStopped` (seen in CI-like
/// runs with two CPU hogs beside the tests).
@Suite struct TransportConnectionTests {
    private actor Flag {
        private(set) var isSet = false
        func set() { isSet = true }
    }

    /// Opens a call on `transport` and reads its answer to the end, then sets `answered`.
    private static func call(_ transport: CassetteGRPCTransport, answered: Flag) async throws {
        let descriptor = MethodDescriptor(fullyQualifiedService: "demo.Greeter", method: "SayHello")
        try await transport.withStream(descriptor: descriptor, options: .defaults) { stream, _ in
            try await stream.outbound.write(.metadata([:]))
            try await stream.outbound.write(.message([0x0a, 0x03, 0x41, 0x64, 0x61]))
            await stream.outbound.finish()
            for try await _ in stream.inbound {}
        }
        await answered.set()
    }

    @Test func aCallMadeBeforeConnectWaitsForIt() async throws {
        let transport = CassetteGRPCTransport(cassette: Cassette())
        let answered = Flag()
        let call = Task { try await Self.call(transport, answered: answered) }
        // Time enough for an instant answer (the transport before this change answered in microseconds).
        try await Task.sleep(for: .milliseconds(200))
        #expect(await !answered.isSet, "answered before the transport was connected")

        let connection = Task { try await transport.connect() }
        try await call.value
        #expect(await answered.isSet)
        // Once connected, a call goes at once.
        let again = Flag()
        try await Self.call(transport, answered: again)
        #expect(await again.isSet)
        transport.beginGracefulShutdown()
        try await connection.value
    }
}
