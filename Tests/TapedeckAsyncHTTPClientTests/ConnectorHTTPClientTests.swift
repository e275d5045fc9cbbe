import AsyncHTTPClient
import HTTPTypes
import Foundation
import NIOCore
import Tapedeck
import TapedeckAsyncHTTPClient
import TapedeckTestSupport
import Testing

/// Code written against AsyncHTTPClient: it takes an `HTTPClientExecuting` and reads the body as a stream.
struct WeatherService {
    let client: any HTTPClientExecuting
    let baseURL: String

    func greeting(for name: String) async throws -> (status: UInt, text: String) {
        let response = try await client.execute(HTTPClientRequest(url: "\(baseURL)/plaintext?name=\(name)"), timeout: .seconds(10))
        return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }
}

@Suite("ConnectorHTTPClient: AsyncHTTPClient code replayed and recorded")
struct ConnectorHTTPClientTests {
    static let exampleCassette = ExampleUpstream.repositoryRoot.appendingPathComponent("cassettes/example.json")

    @Test("code written against execute(_:timeout:) replays the example cassette with no socket")
    func replaysTheExampleCassette() async throws {
        let service = WeatherService(client: try ConnectorHTTPClient.replaying(cassette: Self.exampleCassette),
                                     baseURL: "http://api.example.test")
        let answer = try await service.greeting(for: "Shawn")
        #expect(answer.status == 200)
        #expect(answer.text == "Hello Shawn!")
    }

    @Test("the body streams in parts, as HTTPClient's does, and a gzip answer arrives decoded")
    func bodyStreamsInParts() async throws {
        let client = ConnectorHTTPClient(connector: try CassetteConnector(cassette: Self.exampleCassette), partSize: 16)
        let response = try await client.execute(HTTPClientRequest(url: "http://api.example.test/image.png"), timeout: .seconds(5))
        var parts: [Int] = []
        var bytes: [UInt8] = []
        for try await part in response.body {
            parts.append(part.readableBytes)
            bytes += part.readableBytesView
        }
        #expect(parts.count > 2 && parts.dropLast().allSatisfy { $0 == 16 })
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(response.headers.first(name: "Content-Type") == "image/png")

        let gzip = try await client.execute(HTTPClientRequest(url: "http://api.example.test/gzip-json"), timeout: .seconds(5))
        #expect(gzip.headers.first(name: "Content-Encoding") == nil)
        let json = try await gzip.body.collect(upTo: 1 << 20)
        #expect(String(buffer: json).contains(#""compressed":true"#))
    }

    @Test("a request body is read from the request's stream and matched like any other door's")
    func requestBodyIsMatched() async throws {
        let client = try ConnectorHTTPClient.replaying(cassette: Self.exampleCassette)
        var request = HTTPClientRequest(url: "http://api.example.test/postName")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded; charset=utf-8")
        request.body = .bytes(ByteBuffer(string: "sex=1&name=Shawn"))
        let response = try await client.execute(request, timeout: .seconds(5))
        #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)).contains("Hi Shawn"))
    }

    @Test("a miss throws the replay server's diagnosis")
    func missThrowsTheDiagnosis() async throws {
        let client = try ConnectorHTTPClient.replaying(cassette: Self.exampleCassette)
        let error = try await #require(throws: UnmatchedRequestError.self) {
            _ = try await client.execute(HTTPClientRequest(url: "http://api.example.test/plaintext?name=Sean"), timeout: .seconds(5))
        }
        #expect(error.description.contains("query: recorded has name=Shawn that the request lacks"))
    }

    @Test("recorded latency longer than the timeout fails with deadlineExceeded, as HTTPClient does")
    func latencyPastTheTimeoutIsADeadline() async throws {
        let client = ConnectorHTTPClient(connector: try CassetteConnector(
            cassette: Self.exampleCassette, options: PlaybackOptions(latency: LatencyModel(.fixed(milliseconds: 5_000)))))
        await #expect(throws: HTTPClientError.deadlineExceeded) {
            _ = try await client.execute(HTTPClientRequest(url: "http://api.example.test/plaintext?name=Shawn"), timeout: .milliseconds(50))
        }
    }

    @Test("decodes a live gzip body up to maxBodyBytes; one that decodes further throws, naming the limit", .requires(.python3))
    func decodingStopsAtTheBodyLimit() async throws {
        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let live = HTTPClient(eventLoopGroupProvider: .singleton)
        // 1 MiB of zeros, about 1 KB on the wire.
        let request = HTTPRequest(method: .get, scheme: "http", authority: upstream.authority, path: "/gzip-zeros?size=1048576")
        do {
            let (_, roomy) = try await AsyncHTTPClientConnector(client: live, maxBodyBytes: 2 << 20).send(request, body: nil)
            #expect(roomy == Data(count: 1 << 20))
            await #expect {
                _ = try await AsyncHTTPClientConnector(client: live, maxBodyBytes: 64 << 10).send(request, body: nil)
            } throws: { "\($0)" == "cannot decode gzip body: it decodes past 65536 bytes" }
        } catch {
            try await live.shutdown()
            throw error
        }
        try await live.shutdown()
    }

    @Test("records through a live HTTPClient against a real upstream, then replays with the upstream gone", .requires(.python3))
    func recordsThroughHTTPClient() async throws {
        let upstream = try ExampleUpstream()
        let file = TestFiles.folder.appendingPathComponent("tapedeck-ahc-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let live = HTTPClient(eventLoopGroupProvider: .singleton)
        let recording = try ConnectorHTTPClient.recording(cassette: file, live: live, mode: .all, environment: [:])
        let recorded = try await WeatherService(client: recording, baseURL: upstream.baseURL).greeting(for: "Ada")
        let gzip = try await recording.execute(HTTPClientRequest(url: "\(upstream.baseURL)/gzip-json"), timeout: .seconds(10))
        let gzipText = String(buffer: try await gzip.body.collect(upTo: 1 << 20))
        try (recording.connector as! RecordingConnector).flush()
        try await live.shutdown()
        upstream.stop()

        #expect(recorded.text == "Hello Ada!")
        #expect(gzipText.contains(#""compressed":true"#), "the live gzip body is handed over decoded")
        let saved = try CassetteCodec().load(file)
        #expect(saved.interactions.count == 2)
        #expect(saved.interactions[1].response.headers["Content-Encoding"] == "gzip")
        #expect(saved.interactions[1].response.body.text?.contains(#""compressed":true"#) == true, "stored decoded, readable")

        let replay = try ConnectorHTTPClient.replaying(cassette: file)
        #expect(try await WeatherService(client: replay, baseURL: upstream.baseURL).greeting(for: "Ada").text == "Hello Ada!")
    }
}
