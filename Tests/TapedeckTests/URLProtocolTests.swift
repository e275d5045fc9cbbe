import Foundation
import TapedeckTestSupport
import Testing
import Tapedeck
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLProtocol adapter: URLSession tasks answered from cassettes and recorded through the network.
@Suite struct URLProtocolTests {
    static let repository: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url.deleteLastPathComponent()
        }
        return url
    }()
    static let example = repository.appendingPathComponent("cassettes/example.json")

    func session(_ options: PlaybackOptions = PlaybackOptions()) throws -> URLSession {
        URLSession(configuration: try .replaying(cassette: Self.example, options: options))
    }

    func request(_ path: String, method: String = "GET", body: Data? = nil, contentType: String? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: "http://api.example.test\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        return request
    }

    func dataTask(_ session: URLSession, _ request: URLRequest) async -> (Data?, URLResponse?, (any Error)?) {
        await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                continuation.resume(returning: (data, response, error))
            }.resume()
        }
    }

    @Test func dataTaskWithCompletionHandlerReplaysTheRecordedResponse() async throws {
        let (data, response, error) = await dataTask(try session(), request("/plaintext?name=Shawn"))
        #expect(error == nil)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(data.map { String(decoding: $0, as: UTF8.self) } == "Hello Shawn!")
    }

    @Test func asyncDataForRequestReplaysAFormPost() async throws {
        let (data, response) = try await session().data(for: request(
            "/postName", method: "POST", body: Data("name=Shawn&sex=1".utf8), contentType: "application/x-www-form-urlencoded; charset=utf-8"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: String]
        #expect(json?["greeting"] == "Hi Shawn")
    }

    @Test func requestWithAnHTTPBodyStreamIsMatchedOnTheStreamedBody() async throws {
        let body = #"{"user":{"name":"Shawn","tags":["swift","http"]},"count":3,"active":true}"#
        var streamed = request("/postBodyData", method: "POST", contentType: "application/json")
        streamed.httpBodyStream = InputStream(data: Data(body.utf8))
        let (data, _) = try await session().data(for: streamed)
        #expect(String(decoding: data, as: UTF8.self).contains(#""id":42"#))
    }

    @Test func uploadTaskWithStreamedRequestReplaysThroughTheDelegate() async throws {
        let body = #"{"user":{"name":"Shawn","tags":["swift","http"]},"count":3,"active":true}"#
        var streamed = request("/postBodyData", method: "POST", contentType: "application/json")
        streamed.httpBodyStream = InputStream(data: Data(body.utf8))
        let collector = URLProtocolDelegateCollector()
        let session = URLSession(configuration: try .replaying(cassette: Self.example), delegate: collector, delegateQueue: nil)
        let (data, error) = await collector.run { session.uploadTask(withStreamedRequest: streamed).resume() }
        #expect(error == nil)
        #expect(String(decoding: data, as: UTF8.self).contains(#""id":42"#))
    }

    @Test func gzipBodyArrivesDecodedAndBinaryBodyArrivesExact() async throws {
        let session = try session()
        let (json, jsonResponse) = try await session.data(for: request("/gzip-json"))
        #expect(String(decoding: json, as: UTF8.self).contains(#""compressed":true"#))
        #expect((jsonResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding") == nil)
        let recorded = try CassetteCodec().load(Self.example).interactions[4].response.body.data
        let (png, _) = try await session.data(for: request("/image.png"))
        #expect(png == recorded)
        #expect(png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func recordedErrorStatusIsAResponseNotAnError() async throws {
        let (data, response) = try await session().data(for: request("/users?team=empty"))
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
        #expect(String(decoding: data, as: UTF8.self) == #"{"error":"team not found"}"#)
    }

    @Test func unmatchedRequestFailsWithTheCoreDiagnosis() async throws {
        await #expect {
            _ = try await session().data(for: request("/plaintext?name=Nobody"))
        } throws: { error in
            guard let unmatched = error as? UnmatchedRequestError else { return false }
            return unmatched.diagnosis.reason == .noMatch && unmatched.diagnosis.nearest.first?.url == "http://api.example.test/plaintext?name=Shawn"
        }
    }

    @Test func eachConfigurationHasItsOwnPlaybackState() async throws {
        let options = PlaybackOptions(exhaustion: .error)
        let first = try session(options), second = try session(options)
        _ = try await first.data(for: request("/image.png"))
        _ = try await second.data(for: request("/image.png"))
        await #expect(throws: UnmatchedRequestError.self) { _ = try await first.data(for: request("/image.png")) }
    }

    @Test func parallelSessionsWithDifferentCassettesNeverMeet() async throws {
        let other = Cassette(interactions: [Interaction(
            request: CassetteRequest(method: "GET", url: "http://api.example.test/plaintext?name=Shawn"),
            response: CassetteResponse(status: 200, body: Body(text: "other cassette")))])
        let sessions = [try session(), URLSession(configuration: .replaying(CassetteConnector(cassette: other, name: "other")))]
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for round in 0..<40 {
                group.addTask {
                    let (data, _) = try await sessions[round % 2].data(for: request("/plaintext?name=Shawn"))
                    return (round % 2, String(decoding: data, as: UTF8.self))
                }
            }
            return try await group.reduce(into: [(Int, String)]()) { $0.append($1) }
        }
        #expect(answers.count == 40)
        #expect(answers.allSatisfy { $0.1 == ($0.0 == 0 ? "Hello Shawn!" : "other cassette") })
    }

    @Test func downloadTaskFailsWithTheTypedLimitAndDataDownloadWritesTheFile() async throws {
        let session = try session()
        #if canImport(FoundationNetworking)
        await #expect {
            _ = try await session.download(for: request("/image.png"))
        } throws: { error in
            guard case .downloadTaskUnsupported = error as? URLProtocolAdapterError else { return false }
            return "\(error)".contains("dataDownload")
        }
        #endif
        let file = TestFiles.folder.appendingPathComponent("tapedeck-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        let (written, response) = try await session.dataDownload(for: request("/image.png"), to: file)
        #expect(written == file)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try Data(contentsOf: file) == CassetteCodec().load(Self.example).interactions[4].response.body.data)
    }

    @Test func uploadFromDataFailsBecauseFoundationHidesTheBody() async throws {
        await #expect {
            _ = try await session().upload(for: request("/postName", method: "POST"), from: Data("name=Shawn&sex=1".utf8))
        } throws: { error in
            guard case .hiddenUploadBody = error as? URLProtocolAdapterError else { return false }
            return "\(error)".contains("httpBody")
        }
    }

    @Test func sessionWhoseCacheWasReplacedFailsWithNoConnector() async throws {
        let configuration = try URLSessionConfiguration.replaying(cassette: Self.example)
        configuration.urlCache = nil
        await #expect {
            _ = try await URLSession(configuration: configuration).data(for: request("/image.png"))
        } throws: { error in
            guard case .noConnector = error as? URLProtocolAdapterError else { return false }
            return true
        }
    }

    @Test func cancellingATaskStopsTheRecordedDelay() async throws {
        let clock = BlockingClock()
        let connector = try CassetteConnector(
            cassette: Self.example, options: PlaybackOptions(latency: LatencyModel(.fixed(milliseconds: 10_000))), clock: clock)
        let session = URLSession(configuration: .replaying(connector))
        let task = Task { try await session.data(for: request("/image.png")) }
        try await clock.waitForSleep()
        #expect(clock.sleepsStarted == 1)
        task.cancel()
        // The clock only wakes on cancellation, so reaching the end at all proves the delay was cut short.
        await #expect(throws: (any Error).self) { _ = try await task.value }
    }

    @Test(.requires(.python3)) func recordingConfigurationRecordsThroughTheLiveNetworkThenReplays() async throws {
        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let file = TestFiles.folder.appendingPathComponent("tapedeck-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try URLSessionConfiguration.recording(cassette: file, mode: .all, environment: [:])
        var live = URLRequest(url: URL(string: "\(upstream.baseURL)/plaintext?name=Ada")!)
        live.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession(configuration: configuration).data(for: live)
        #expect(String(decoding: data, as: UTF8.self) == "Hello Ada!")
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        try (configuration.tapedeckConnector as? RecordingConnector)?.flush()
        let cassette = try CassetteCodec().load(file)
        #expect(cassette.interactions.count == 1)
        #expect(cassette.interactions.first?.request.headers["Authorization"] == Redactor.placeholder)
        upstream.stop()
        let (replayed, _) = try await URLSession(configuration: .replaying(cassette: file)).data(for: live)
        #expect(String(decoding: replayed, as: UTF8.self) == "Hello Ada!")
    }

    @Test func unreadableBodyStreamFailsWithATypedError() async throws {
        var broken = request("/postBodyData", method: "POST", contentType: "application/json")
        broken.httpBodyStream = InputStream(url: URL(fileURLWithPath: "/nonexistent/tapedeck-\(UUID().uuidString)"))
        await #expect {
            _ = try await session().data(for: broken)
        } throws: { error in
            guard case .unreadableBodyStream(let url, _) = error as? URLProtocolAdapterError else { return false }
            return url == "http://api.example.test/postBodyData"
        }
    }
}
