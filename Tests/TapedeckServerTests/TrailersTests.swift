import Foundation
import TapedeckCore
import TapedeckServer
import TapedeckTestSupport
import Testing

/// Trailing headers (SPEC section 12): recorded from the upstream into `response.trailers` with the
/// interaction's `httpVersion`, and replayed over HTTP/2, and over HTTP/1.1 to a client that sent
/// `TE: trailers`. Real clients: nghttp (nghttp2-client) and raw HTTP/1.1.
@Suite struct TrailersTests {
    static let cassette = #"""
    {"version": 1, "interactions": [{
      "recordedAt": "2026-11-21T10:00:00.000Z", "httpVersion": "2",
      "request": {"method": "GET", "url": "http://api.example.test/call", "headers": {}},
      "response": {"status": 200, "headers": {"Content-Type": ["text/plain"], "Content-Length": ["5"]},
                   "body": {"text": "reply"}, "trailers": {"grpc-status": ["0"], "grpc-message": ["fine"]}}
    }]}
    """#

    /// What `nghttp -v` printed: each frame received, a HEADERS frame's fields printed before it.
    private func nghttp(_ url: String) async throws -> String {
        let result = try await Subprocess.run(executable: "/usr/bin/env", arguments: ["nghttp", "-v", url])
        #expect(result.status == 0, "\(result.error)")
        return result.text
    }

    /// The fields of the HEADERS frame received after the body (nghttp prints them before the frame line).
    private func trailerFields(_ verbose: String) -> String {
        guard let data = verbose.range(of: "recv DATA frame", options: .backwards),
              let trailers = verbose.range(of: "recv HEADERS frame", options: .backwards), data.upperBound < trailers.lowerBound else {
            return ""
        }
        return String(verbose[data.upperBound..<trailers.upperBound])
    }

    @Test(.requires(.curl, .nghttp)) func replayedTrailersGoToHTTP2ClientsAndToHTTP1ClientsThatAskForThem() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(Self.cassette, named: "trailers.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            // HTTP/2: a second HEADERS frame, ending the stream, after the body.
            let verbose = try await nghttp(harness.base + "/call")
            #expect(verbose.components(separatedBy: "recv HEADERS frame").count == 3, "\(verbose)")
            let trailers = trailerFields(verbose)
            #expect(trailers.contains("grpc-status: 0") && trailers.contains("grpc-message: fine"), "\(verbose)")
            #expect(verbose.contains("reply"))
            #expect(!verbose.lowercased().contains("content-length"), "the stream's end frames the body, as for gRPC: \(verbose)")

            // HTTP/1.1 with TE: trailers: chunked, the trailers after the last chunk.
            let asking = try RawSocket(port: harness.server.port)
            asking.send("GET /call HTTP/1.1\r\nHost: api.example.test\r\nTE: trailers\r\n\r\n")
            let (chunked, _) = asking.readBlocking { let text = String(decoding: $0, as: UTF8.self); return text.contains("\r\n0\r\n") && text.hasSuffix("\r\n\r\n") }
            let text = String(decoding: chunked, as: UTF8.self)
            #expect(text.lowercased().contains("transfer-encoding: chunked"), "\(text)")
            #expect(!text.lowercased().contains("content-length"), "\(text)")
            let afterLastChunk = text.components(separatedBy: "\r\n0\r\n").last ?? ""
            #expect(afterLastChunk.contains("grpc-status: 0\r\n") && afterLastChunk.contains("grpc-message: fine\r\n"), "\(text)")
            #expect(text.hasSuffix("\r\n\r\n"))

            // HEAD with TE: trailers: the length it describes, nothing after the head.
            let head = try RawSocket(port: harness.server.port)
            head.send("HEAD /call HTTP/1.1\r\nHost: api.example.test\r\nTE: trailers\r\n\r\n")
            let (headBytes, _) = head.readBlocking { String(decoding: $0, as: UTF8.self).hasSuffix("\r\n\r\n") }
            let headText = String(decoding: headBytes, as: UTF8.self).lowercased()
            #expect(headText.contains("content-length: 5") && !headText.contains("chunked"), "\(headText)")

            // HTTP/1.1 without it: the body with its length, no trailers.
            let plain = try await Curl.run(["--http1.1", "--include", harness.base + "/call"])
            #expect(plain.text.lowercased().contains("content-length: 5"))
            #expect(!plain.text.contains("grpc-status"))
            #expect(plain.text.hasSuffix("\r\n\r\nreply"))
        }
    }

    @Test(.requires(.curl, .nghttp)) func trailersThatFrameTheBodyOrConcernTheConnectionAreNotReplayed() async throws {
        // A hand-edited cassette: before, curl over HTTP/2 failed the stream (exit 92) on these
        // trailers, and an HTTP/1.1 client got a Content-Length and Transfer-Encoding after the body.
        let hostile = Self.cassette
            .replacingOccurrences(of: #""Content-Length": ["5"]}"#, with: #""Content-Length": ["5"], "Connection": ["X-Hop"]}"#)
            .replacingOccurrences(of: #""grpc-message": ["fine"]"#, with: #""grpc-message": ["fine"], "Content-Length": ["5"], "X-Hop": ["1"], "Transfer-Encoding": ["chunked"], "Connection": ["close"]"#)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(hostile, named: "trailers.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let http2 = try await Curl.run(["--http2-prior-knowledge", "-H", "TE: trailers", "--write-out", " %{http_version}", harness.base + "/call"])
            #expect(http2.text == "reply 2", "\(http2.error)")
            let trailers = trailerFields(try await nghttp(harness.base + "/call")).lowercased()
            #expect(trailers.contains("grpc-status: 0") && trailers.contains("grpc-message: fine"), "\(trailers)")
            for name in ["content-length", "x-hop", "transfer-encoding", "connection"] { #expect(!trailers.contains(name), "\(trailers)") }

            let asking = try RawSocket(port: harness.server.port)
            asking.send("GET /call HTTP/1.1\r\nHost: api.example.test\r\nTE: trailers\r\n\r\n")
            let (chunked, _) = asking.readBlocking { let text = String(decoding: $0, as: UTF8.self); return text.contains("\r\n0\r\n") && text.hasSuffix("\r\n\r\n") }
            let afterLastChunk = String(decoding: chunked, as: UTF8.self).components(separatedBy: "\r\n0\r\n").last ?? ""
            let fields = Set(afterLastChunk.components(separatedBy: "\r\n").filter { !$0.isEmpty })
            #expect(fields == ["grpc-status: 0", "grpc-message: fine"], "\(afterLastChunk)")
        }
    }

    @Test(.requires(.curl, .nghttp)) func theRecordingProxyKeepsTrailersAndPassesThemOn() async throws {
        let recorded = try await RecordHarness.recordFromTestUpstream { (harness: RecordHarness, _: TestUpstream) async throws in
            // An HTTP/2 client takes trailers: the proxy asks the upstream for them and passes them on.
            let verbose = try await nghttp(harness.base + "/trailers")
            #expect(trailerFields(verbose).lowercased().contains("grpc-status: 0"), "\(verbose)")
            // Not the trailer the upstream's Connection named: it concerned that connection only.
            #expect(!trailerFields(verbose).lowercased().contains("x-hop"), "\(verbose)")
            #expect(verbose.contains("te=trailers"))
            // An HTTP/1.1 client that did not ask gets the body only.
            let plain = try await Curl.run(["--http1.1", "--include", harness.base + "/trailers?second"])
            #expect(plain.text.hasSuffix("te=none"), "\(plain.text)")
            #expect(!plain.text.lowercased().contains("grpc-status"))
        }.cassette
        #expect(recorded.interactions.count == 2)
        for interaction in recorded.interactions {
            #expect(interaction.httpVersion == "1.1")
            #expect(interaction.response.trailers?["Grpc-Status"] == "0")
            #expect(interaction.response.trailers?["X-Checksum"] == "abc")
            #expect(interaction.response.trailers?.map(\.name) == ["Grpc-Status", "X-Checksum"])
        }
    }

    @Test func aCassetteWithTrailersRoundTripsAndABadVersionIsRefused() throws {
        let cassette = try CassetteCodec().decode(Data(Self.cassette.utf8))
        #expect(cassette.interactions[0].httpVersion == "2")
        #expect(cassette.interactions[0].response.trailers?["grpc-message"] == "fine")
        let again = try CassetteCodec().decode(try CassetteCodec().encode(cassette).bytes)
        #expect(again == cassette)
        let broken = Self.cassette.replacingOccurrences(of: #""httpVersion": "2""#, with: #""httpVersion": "3.5""#)
        #expect(throws: CassetteError.self) { try CassetteCodec().decode(Data(broken.utf8)) }
    }
}
