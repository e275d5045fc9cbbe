import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tapedeck
import TapedeckOpenAPI
import TapedeckTestSupport
import Testing

/// The OpenAPI `ClientMiddleware` recording through the next transport.
@Suite struct RecordingMiddlewareTests {
    @Test(.requires(.python3)) func recordsThroughTheTransportThenReplaysWithoutIt() async throws {
        let upstream = try ExampleUpstream()
        defer { upstream.stop() }
        let file = TestFiles.folder.appendingPathComponent("tapedeck-openapi-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let baseURL = URL(string: upstream.baseURL)!
        let live = LiveURLSessionTransport()
        let middleware = try RecordingMiddleware(cassette: file, mode: .newEpisodes, environment: [:])
        var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/postName")
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.authorization] = "Bearer secret"

        let (response, body) = try await middleware.intercept(request, body: HTTPBody("name=Ada&sex=2"), baseURL: baseURL,
                                                              operationID: "postName") { request, body, baseURL in
            try await live.send(request, body: body, baseURL: baseURL, operationID: "postName")
        }
        #expect(response.status.code == 200)
        #expect(try await String(collecting: try #require(body), upTo: 1024).contains(#""greeting":"Hi Ada""#))
        try middleware.finish()
        let recorded = try CassetteCodec().load(file)
        #expect(recorded.interactions.count == 1)
        #expect(recorded.interactions.first?.request.url == "\(upstream.baseURL)/postName")
        #expect(recorded.interactions.first?.request.headers["Authorization"] == Redactor.placeholder)

        // new-episodes: the same request is now replayed, the transport is not called again.
        upstream.stop()
        let again = try RecordingMiddleware(cassette: file, mode: .newEpisodes, environment: [:])
        let (replayed, replayedBody) = try await again.intercept(request, body: HTTPBody("name=Ada&sex=2"), baseURL: baseURL,
                                                                 operationID: "postName") { request, body, baseURL in
            try await live.send(request, body: body, baseURL: baseURL, operationID: "postName")
        }
        #expect(replayed.status.code == 200)
        #expect(try await String(collecting: try #require(replayedBody), upTo: 1024).contains("Hi Ada"))
        #expect(live.sent.value == 1)
        let transport = try CassetteTransport(cassette: file)
        let (fromTransport, _) = try await transport.send(request, body: HTTPBody("name=Ada&sex=2"), baseURL: baseURL, operationID: "postName")
        #expect(fromTransport.status.code == 200)
    }

    @Test func replayModeWithoutAMatchThrowsTheDiagnosisAndNeverForwards() async throws {
        let middleware = try RecordingMiddleware(cassette: exampleCassette, mode: .replay, environment: [:])
        let live = LiveURLSessionTransport()
        await #expect(throws: UnmatchedRequestError.self) {
            _ = try await middleware.intercept(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/nothing"), body: nil,
                                               baseURL: URL(string: "http://api.example.test")!, operationID: "x") { request, body, baseURL in
                try await live.send(request, body: body, baseURL: baseURL, operationID: "x")
            }
        }
        #expect(live.sent.value == 0)
    }

    @Test func tapedeckModeFromTheEnvironmentWins() throws {
        let middleware = try RecordingMiddleware(cassette: exampleCassette, mode: .newEpisodes, environment: ["TAPEDECK_MODE": "replay"])
        #expect(middleware.connector.mode == .replay)
    }
}
