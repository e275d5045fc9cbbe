import Foundation
import TapedeckCore
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// Hostile HTTP/2 input gets the protocol's own error, and the server goes on serving (SPEC 12):
/// too many streams at once, a header block past the limit, and gRPC messages whose length
/// prefix lies. The frames are written by hand over a raw socket.
@Suite struct HTTP2BadInputTests {
    /// One frame: 24-bit length, type, flags, stream.
    private static func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: Data = Data()) -> Data {
        let length = payload.count
        var bytes = Data([UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags,
                          UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)])
        bytes.append(payload)
        return bytes
    }

    /// An HPACK block: `POST http://127.0.0.1/plaintext?name=Frames` from the static table, plus `extra` as literals.
    private static func requestBlock(extra: [(String, String)] = []) -> Data {
        var block = Data([0x83, 0x86])  // :method POST, :scheme http
        for (index, value) in [(UInt8(0x04), "/plaintext?name=Frames"), (0x01, "127.0.0.1")] {  // :path, :authority
            block.append(index)
            block.append(contentsOf: Self.length(value.utf8.count))
            block.append(contentsOf: value.utf8)
        }
        for (name, value) in extra {
            block.append(0x00)
            block.append(contentsOf: Self.length(name.utf8.count))
            block.append(contentsOf: name.utf8)
            block.append(contentsOf: Self.length(value.utf8.count))
            block.append(contentsOf: value.utf8)
        }
        return block
    }

    /// An HPACK string length (7-bit prefix integer, no Huffman coding).
    private static func length(_ value: Int) -> [UInt8] {
        guard value >= 127 else { return [UInt8(value)] }
        var bytes: [UInt8] = [127]
        var rest = value - 127
        while rest >= 128 {
            bytes.append(UInt8(rest & 0x7F | 0x80))
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    /// The frames in a server's bytes: type, stream and the first four payload bytes as a number (an error code).
    private static func frames(in data: Data) -> [(type: UInt8, stream: UInt32, code: UInt32?)] {
        var frames: [(UInt8, UInt32, UInt32?)] = []
        var offset = data.startIndex
        while data.endIndex - offset >= 9 {
            let length = Int(data[offset]) << 16 | Int(data[offset + 1]) << 8 | Int(data[offset + 2])
            let stream = data[(offset + 5)..<(offset + 9)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
            let payload = data[(offset + 9)..<min(offset + 9 + length, data.endIndex)]
            let type = data[offset + 3]
            // RST_STREAM's code is its payload; GOAWAY's follows the last stream id.
            let codeAt = type == 0x07 ? payload.startIndex + 4 : payload.startIndex
            let code = payload.endIndex - codeAt >= 4 ? payload[codeAt..<(codeAt + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : nil
            frames.append((type, stream, code))
            offset += 9 + length
        }
        return frames
    }

    private static var greeting: Data {
        Data(HTTPVersionSnifferPreface.bytes) + frame(type: 0x04, flags: 0, stream: 0)
    }

    /// swift-nio-http2 treats a stream past `SETTINGS_MAX_CONCURRENT_STREAMS` as a connection error:
    /// GOAWAY with PROTOCOL_ERROR, and the connection closes (RFC 9113 also allows refusing the one
    /// stream; see the README). Other connections are served.
    @Test func aStreamPastTheConcurrentLimitEndsTheConnectionWithGoawayAndOthersAreServed() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            var bytes = Self.greeting
            // One stream more than SETTINGS_MAX_CONCURRENT_STREAMS, each left open (its body not ended).
            for number in 0...ServerPipeline.maxConcurrentStreams {
                bytes.append(Self.frame(type: 0x01, flags: 0x04, stream: UInt32(2 * number + 1), Self.requestBlock()))
            }
            socket.send(bytes)
            let answer = await socket.read()
            let goaway = Self.frames(in: answer.data).filter { $0.type == 0x07 }
            #expect(goaway.map(\.code) == [0x01], "GOAWAY with PROTOCOL_ERROR: \(Self.frames(in: answer.data))")
            #expect(answer.ending == .closed)
            let healthy = try await Curl.run(["--http2-prior-knowledge", harness.base + "/plaintext?name=Shawn"])
            #expect(healthy.text == "Hello Shawn!")
        }
    }

    @Test func streamsUnderTheLimitAreServedTogether() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            var bytes = Self.greeting
            let streams = (0..<ServerPipeline.maxConcurrentStreams).map { UInt32(2 * $0 + 1) }
            for stream in streams {
                bytes.append(Self.frame(type: 0x01, flags: 0x04, stream: stream, Self.requestBlock()))
            }
            for stream in streams { bytes.append(Self.frame(type: 0x00, flags: 0x01, stream: stream)) }
            socket.send(bytes)
            let answered = await socket.read { data in Set(Self.frames(in: data).filter { $0.type == 0x01 }.map(\.stream)).count == streams.count }
            #expect(Set(Self.frames(in: answered.data).filter { $0.type == 0x01 }.map(\.stream)) == Set(streams))
        }
    }

    @Test func aHeaderBlockPastTheLimitIsAnErrorAndOtherConnectionsAreServed() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let socket = try RawSocket(port: harness.server.port, timeout: 10)
            // 80 KiB of header value, past SETTINGS_MAX_HEADER_LIST_SIZE: a HEADERS frame and CONTINUATIONs.
            let block = Self.requestBlock(extra: [("x-huge", String(repeating: "a", count: 80 * 1024))])
            var bytes = Self.greeting
            let pieces = stride(from: 0, to: block.count, by: 16_000).map { block[$0..<min($0 + 16_000, block.count)] }
            for (number, piece) in pieces.enumerated() {
                let isLast = number == pieces.count - 1
                bytes.append(Self.frame(type: number == 0 ? 0x01 : 0x09, flags: (isLast ? 0x04 : 0) | (number == 0 ? 0x01 : 0),
                                        stream: 1, Data(piece)))
            }
            socket.send(bytes)
            let answer = await socket.read { data in Self.frames(in: data).contains { $0.type == 0x07 || $0.type == 0x03 } }
            let errors = Self.frames(in: answer.data).filter { $0.type == 0x07 || $0.type == 0x03 }
            #expect(!errors.isEmpty, "GOAWAY or RST_STREAM: \(Self.frames(in: answer.data).map(\.type))")
            #expect(!Self.frames(in: answer.data).contains { $0.type == 0x01 }, "the request was not answered")
            let healthy = try await Curl.run(["--http2-prior-knowledge", harness.base + "/plaintext?name=Shawn"])
            #expect(healthy.text == "Hello Shawn!")
        }
    }

    @Test func gRPCMessagesWhoseLengthPrefixLiesGetInternal() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(GRPCReplayTests.cassette, named: "greeter.json", in: directory)
        let lying = directory.appending(path: "lying.bin")
        try Data([0, 0, 0, 0, 100, 0x0A, 0x03]).write(to: lying)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let answer = try await Subprocess.run(executable: "/usr/bin/env", arguments: [
                "nghttp", "-v", "-H", ":method: POST", "-H", "content-type: application/grpc", "-H", "te: trailers",
                "-d", lying.path, harness.base + "/demo.Greeter/SayHello"])
            #expect(answer.text.contains("grpc-status: 13"), "\(answer.text)")
            #expect(answer.text.contains("length prefix says 100 bytes; 2 follow"), "\(answer.text)")
            #expect(harness.responder.journal.document().entries.isEmpty, "nothing was matched or played")
        }
    }

    /// The idle timeout (300 ms here) closes an HTTP/2 connection with no stream open, with
    /// `GOAWAY` (`NO_ERROR`); one whose stream is still open (its body not ended) stays.
    @Test func anIdleConnectionIsClosedWithGoawayAndOneWithAnOpenStreamStays() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], configure: { $0.idleTimeout = .milliseconds(300) }) { harness in
            let idle = try RawSocket(port: harness.server.port, timeout: 10)
            idle.send(Self.greeting)
            let closed = await idle.read()
            #expect(closed.ending == .closed)
            #expect(Self.frames(in: closed.data).filter { $0.type == 0x07 }.map(\.code) == [0x00], "GOAWAY with NO_ERROR")

            let busy = try RawSocket(port: harness.server.port, timeout: 1)
            busy.send(Self.greeting + Self.frame(type: 0x01, flags: 0x04, stream: 1, Self.requestBlock()))
            let kept = await busy.read()
            #expect(kept.ending == .timedOut, "a connection with a stream open is kept past the idle timeout")
            #expect(!Self.frames(in: kept.data).contains { $0.type == 0x07 })
        }
    }
}
