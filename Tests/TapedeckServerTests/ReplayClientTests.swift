import AsyncHTTPClient
import Foundation
import TapedeckTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import TapedeckCore
import TapedeckServer
import Testing

/// The example cassette served to real clients over real sockets.
@Suite struct ReplayClientTests {
    @Test func urlSessionReceivesTheRecordedAnswer() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let (data, response) = try await Clients.urlSession().data(from: URL(string: harness.base + "/plaintext?name=Shawn")!)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "Hello Shawn!")
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        }
    }

    @Test func asyncHTTPClientReceivesTheRecordedAnswer() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let response = try await Clients.send(client, .GET, harness.base + "/users?team=empty")
                #expect(response.status == 404)
                #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"team not found"}"#)
                #expect(response.headers.first(name: "Content-Length") == "26")
            }
        }
    }

    @Test(.requires(.curl)) func curlReceivesTheRecordedAnswer() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let result = try await Curl.run(["-X", "POST", "--data", "name=Shawn&sex=1", harness.base + "/postName"])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.text == #"{"name":"Shawn","sex":"1","greeting":"Hi Shawn"}"#)
        }
    }

    @Test(.requires(.curl)) func binaryBodyArrivesByteForByte() async throws {
        let expected = try Fixtures.example().interactions[4].response.body.data
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let (data, _) = try await Clients.urlSession().data(from: URL(string: harness.base + "/image.png")!)
            #expect(data == expected)
            #expect(data.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
            let curl = try await Curl.run([harness.base + "/image.png"])
            #expect(curl.output == expected)
        }
    }

    @Test(.requires(.curl)) func gzipResponseIsEncodedAgainWithItsLength() async throws {
        let stored = try Fixtures.example().interactions[5].response.body.data
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            try await Clients.withHTTPClient { (client: HTTPClient) async throws in
                let response = try await Clients.send(client, .GET, harness.base + "/gzip-json", headers: [("Accept-Encoding", "gzip")])
                #expect(response.headers.first(name: "Content-Encoding") == "gzip")
                #expect(response.headers.first(name: "Content-Length") == String(response.body.count))
                #expect(response.body.prefix(2) == Data([0x1F, 0x8B]))
                #expect(try ContentCoding.gzip.decode(response.body) == stored)
            }
            let curl = try await Curl.run(["--compressed", harness.base + "/gzip-json"])
            #expect(curl.output == stored)
        }
    }

    @Test(.requires(.curl)) func headIsAnsweredWithoutBody() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Fixtures.writeCassette(#"""
        {"version": 1, "interactions": [
          {"request": {"method": "HEAD", "url": "http://h.test/doc"},
           "response": {"status": 200, "headers": {"Content-Length": ["5000"], "ETag": ["\"v1\""]}}},
          {"request": {"method": "GET", "url": "http://h.test/doc"},
           "response": {"status": 200, "body": {"text": "the document"}}}
        ]}
        """#, named: "head.json", in: directory)
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let connection = try RawSocket(port: harness.server.port)
            connection.send("HEAD /doc HTTP/1.1\r\nHost: x\r\n\r\nHEAD /missing HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /doc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let (data, ending) = await connection.read()
            let text = String(decoding: data, as: UTF8.self)
            #expect(ending == .closed)
            let responses = text.components(separatedBy: "HTTP/1.1 ").dropFirst()
            #expect(responses.count == 3)
            let head = try #require(responses.first)
            #expect(head.hasPrefix("200 OK"))
            #expect(head.lowercased().contains("content-length: 5000"))
            #expect(head.hasSuffix("\r\n\r\n"))
            let miss = Array(responses)[1]
            #expect(miss.hasPrefix("599"))
            #expect(miss.hasSuffix("\r\n\r\n"))
            #expect(text.hasSuffix("\r\n\r\nthe document"))
        }
        try await ReplayHarness.run(files: [file]) { (harness: ReplayHarness) async throws in
            let curl = try await Curl.run(["--head", harness.base + "/doc"])
            #expect(curl.text.contains("ETag: \"v1\""))
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let connection = try RawSocket(port: harness.server.port)
            let requests = "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /users?team=empty HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            connection.send(requests)
            let (data, ending) = await connection.read()
            let text = String(decoding: data, as: UTF8.self)
            #expect(ending == .closed)
            let first = try #require(text.range(of: "Hello Shawn!"))
            let second = try #require(text.range(of: "team not found"))
            let third = try #require(text.range(of: "Hello Shawn!", range: second.upperBound..<text.endIndex))
            #expect(first.lowerBound < second.lowerBound && second.lowerBound < third.lowerBound)
            #expect(data.occurrences(of: "HTTP/1.1 ") == 3)
        }
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let connection = try RawSocket(port: harness.server.port)
            for _ in 0..<5 {
                connection.send("GET /plaintext?name=Shawn HTTP/1.1\r\nHost: x\r\n\r\n")
                let (data, ending) = await connection.read { $0.occurrences(of: "Hello Shawn!") == 1 }
                #expect(ending != .closed)
                #expect(data.occurrences(of: "Hello Shawn!") == 1)
            }
        }
    }

    /// A recorded event stream has no length; an HTTP/1.0 client, which knows no chunked framing,
    /// gets its bytes as they are and the connection's close as their end.
    @Test func anHTTP10ClientGetsAStreamWithoutChunkFraming() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette]) { (harness: ReplayHarness) async throws in
            let (data, ending) = try await RawSocket.exchange(port: harness.server.port, "GET /events HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let text = String(decoding: data, as: UTF8.self)
            #expect(ending == .closed)
            #expect(text.hasPrefix("HTTP/1.0 200 OK\r\n") && !text.lowercased().contains("transfer-encoding"), "\(text)")
            #expect(text.hasSuffix("\r\n\r\ndata: one\n\ndata: two\n\ndata: three\n\n"), "\(text)")
        }
    }

    @Test(.requires(.curl)) func eventStreamIsSentAsItsChunks() async throws {
        try await ReplayHarness.run(files: [Fixtures.exampleCassette], options: PlaybackOptions(latency: LatencyModel(.recorded))) { (harness: ReplayHarness) async throws in
            let curl = try await Curl.run(["-N", harness.base + "/events"])
            #expect(curl.text == "data: one\n\ndata: two\n\ndata: three\n\n")
            let delay = try #require(harness.scheduledDelays().last)
            #expect(delay.chunks == [.microseconds(100), .microseconds(50_100), .microseconds(101_100)])
            #expect(delay.head == .microseconds(100))
        }
    }
}
