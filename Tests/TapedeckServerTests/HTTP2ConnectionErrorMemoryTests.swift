import Foundation
@testable import TapedeckServer
import TapedeckTestSupport
import Testing

/// Memory after HTTP/2 connection errors with streams open: the real `tapedeck replay` as a child
/// process, a hundred and fifty connections (`TAPEDECK_H2_ERROR_CONNECTIONS` for more) that each
/// open ten streams and then break the protocol one way, its resident memory read from /proc before
/// and after. A connection closed from inside SwiftNIO's HTTP/2 handler, as it reports the error,
/// would keep its streams and handlers alive (about 220 KiB a connection, never given back).
@Suite(.serialized) struct HTTP2ConnectionErrorMemoryTests {
    /// The connections measured for each kind of breach.
    static let connectionCount = Int(ProcessInfo.processInfo.environment["TAPEDECK_H2_ERROR_CONNECTIONS"] ?? "")
        ?? (sanitized ? 20 : 150)

    /// How a connection breaks the protocol, after its ten open streams.
    enum Breach: String, CaseIterable, CustomTestStringConvertible {
        /// A stream past SETTINGS_MAX_CONCURRENT_STREAMS: GOAWAY PROTOCOL_ERROR.
        case tooManyStreams
        /// 300 streams opened and reset at once: GOAWAY ENHANCE_YOUR_CALM.
        case rapidReset
        /// A header block that does not decode (HPACK index 0): GOAWAY COMPRESSION_ERROR.
        case brokenHeaderBlock

        var testDescription: String { rawValue }

        /// The connection's bytes, the greeting first.
        var bytes: Data {
            var bytes = HTTP2Frames.greeting
            let open = 10
            for number in 0..<open {
                bytes += HTTP2Frames.frame(type: 0x01, flags: 0x04, stream: UInt32(2 * number + 1), HTTP2Frames.requestBlock())
            }
            let next = UInt32(2 * open + 1)
            switch self {
            case .tooManyStreams:
                for number in open...ServerPipeline.maxConcurrentStreams {
                    bytes += HTTP2Frames.frame(type: 0x01, flags: 0x04, stream: UInt32(2 * number + 1), HTTP2Frames.requestBlock())
                }
            case .rapidReset:
                for number in 0..<300 {
                    let stream = next + UInt32(2 * number)
                    bytes += HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: stream, HTTP2Frames.requestBlock(get: true))
                        + HTTP2Frames.frame(type: 0x03, flags: 0, stream: stream, Data([0, 0, 0, 8]))
                }
            case .brokenHeaderBlock:
                bytes += HTTP2Frames.frame(type: 0x01, flags: 0x05, stream: next, Data([0x80]))
            }
            return bytes
        }
    }

    @Test(.requires(.curl), arguments: Breach.allCases)
    func memoryReturnsAfterConnectionErrorsWithStreamsOpen(breach: Breach) async throws {
        let home = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try TapedeckProcess(["replay", "--port", "0", Fixtures.exampleCassette.path], environment: ["TAPEDECK_HOME": home.path])
        defer { server.stop() }
        let port = try server.waitUntilListening()
        let bytes = breach.bytes
        func connections(_ count: Int) async throws -> [UInt32] {
            var codes: Set<UInt32> = []
            for _ in 0..<count {
                let socket = try RawSocket(port: port, timeout: 10 * Deadlines.scale)
                socket.send(bytes)
                let answer = await socket.read()
                codes.formUnion(HTTP2Frames.frames(in: answer.data).filter { $0.type == 0x07 }.compactMap(\.code))
            }
            return codes.sorted()
        }
        _ = try await connections(20)  // the allocator's own first growth
        let before = try #require(server.residentKiB())
        let codes = try await connections(Self.connectionCount)
        try await Task.sleep(for: .milliseconds(500))
        let after = try #require(server.residentKiB())
        #expect(codes == [Self.expectedCode[breach]!], "GOAWAY codes: \(codes)")
        if !Self.sanitized {
            #expect(after - before < 8 * 1024, "\(Self.connectionCount) connections took the server from \(before) to \(after) KiB")
        }
        let healthy = try await Curl.run(["--http2-prior-knowledge", "http://127.0.0.1:\(port)/plaintext?name=Shawn"])
        #expect(healthy.text == "Hello Shawn!")
    }

    /// Under a sanitizer, whose shadow memory grows on its own, only the protocol is checked.
    static let sanitized = ProcessInfo.processInfo.environment["TAPEDECK_SANITIZER"] != nil

    /// The GOAWAY code each breach gets.
    static let expectedCode: [Breach: UInt32] = [.tooManyStreams: 0x01, .rapidReset: 0x0B, .brokenHeaderBlock: 0x09]
}
