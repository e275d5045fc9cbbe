import Foundation
import HTTPTypes
import Tapedeck
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
@_spi(Internals) import TapedeckCore
#endif

/// How `ConnectorURLProtocol` finds its connector: through the configuration's `Tapedeck-Route`
/// token (the route Apple's loading system needs) and through `SharedSessionInterception`.
@Suite struct URLProtocolRouteTests {
    static let cassette = Cassette(interactions: [
        Interaction(request: CassetteRequest(method: "GET", url: "http://api.example.test/who"),
                    response: CassetteResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Body(text: "the cassette"))),
    ])

    /// Drives a protocol the way a loading system does and collects what it reports.
    final class Collector: NSObject, URLProtocolClient, @unchecked Sendable {
        private let done = Locked<(response: URLResponse?, data: Data, error: (any Error)?, finished: Bool)>((nil, Data(), nil, false))
        var response: URLResponse? { done.withLock { $0.response } }
        var data: Data { done.withLock { $0.data } }
        var error: (any Error)? { done.withLock { $0.error } }

        func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {}
        func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {}
        func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy) {
            done.withLock { $0.response = response }
        }
        func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) { done.withLock { $0.data.append(data) } }
        func urlProtocolDidFinishLoading(_ protocol: URLProtocol) { done.withLock { $0.finished = true } }
        func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) {
            done.withLock { $0.error = error; $0.finished = true }
        }
        func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {}
        func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {}

        /// Waits (polling, at most 10 s) until the protocol finished or failed.
        func waitUntilDone() async throws {
            for _ in 0..<2000 where !done.withLock({ $0.finished }) { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    @Test("a request carrying only the configuration's Tapedeck-Route header is answered by that configuration's cassette")
    func routeTokenLeadsToTheConfigurationsConnector() async throws {
        let connector = CassetteConnector(cassette: Self.cassette)
        let configuration = URLSessionConfiguration.replaying(connector)
        let token = try #require(configuration.httpAdditionalHeaders?["Tapedeck-Route"] as? String)
        var request = URLRequest(url: URL(string: "http://api.example.test/who")!)
        request.setValue(token, forHTTPHeaderField: "Tapedeck-Route")
        let collector = Collector()
        // No cached response: what Apple's loading system gives a custom protocol.
        let loader = ConnectorURLProtocol(request: request, cachedResponse: nil, client: collector)
        loader.startLoading()
        try await collector.waitUntilDone()
        #expect(collector.error == nil)
        #expect((collector.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: collector.data, as: UTF8.self) == "the cassette")
        #expect(connector.player.playedCounts().map(\.count) == [1])
    }

    @Test("the route header is removed before matching, so a recording with match-header rules never sees it")
    func routeHeaderIsRemovedBeforeMatching() async throws {
        var options = PlaybackOptions()
        options.match.matchedHeaders = ["Tapedeck-Route"]
        let connector = CassetteConnector(cassette: Self.cassette, options: options)
        let session = URLSession(configuration: .replaying(connector))
        let (data, _) = try await session.data(from: URL(string: "http://api.example.test/who")!)
        #expect(String(decoding: data, as: UTF8.self) == "the cassette")
    }

    @Test("an unknown token fails the request with the typed error that says how to build the session")
    func unknownTokenFails() async throws {
        var request = URLRequest(url: URL(string: "http://api.example.test/who")!)
        request.setValue("no-such-token", forHTTPHeaderField: "Tapedeck-Route")
        let collector = Collector()
        let loader = ConnectorURLProtocol(request: request, cachedResponse: nil, client: collector)
        loader.startLoading()
        try await collector.waitUntilDone()
        guard case .noConnector = collector.error as? URLProtocolAdapterError else {
            Issue.record("expected noConnector, got \(String(describing: collector.error))")
            return
        }
    }

    @Test("http(s) requests are claimed; a request marked as sent by a live connector is left to the network (Apple platforms)")
    func liveRequestsAreNotClaimed() {
        let plain = URLRequest(url: URL(string: "http://api.example.test/who")!)
        #expect(ConnectorURLProtocol.canInit(with: plain))
        #expect(!ConnectorURLProtocol.canInit(with: URLRequest(url: URL(string: "ftp://api.example.test/who")!)))
        #if !canImport(FoundationNetworking)
        // FoundationNetworking drops protocol properties when bridging to URLRequest; it never
        // offers a live session's requests to a registered protocol anyway.
        let mutable = (plain as NSURLRequest).mutableCopy() as! NSMutableURLRequest
        URLProtocol.setProperty(true, forKey: "dev.tapedeck.live", in: mutable)
        #expect(!ConnectorURLProtocol.canInit(with: mutable as URLRequest))
        #endif
    }
}

/// `SharedSessionInterception`: sessions nobody injected, answered from a cassette, one test at a time.
///
/// Apple's loading system hands `URLSession.shared`'s requests to the registered protocol with
/// no cached response and no route header; these tests create the protocol that way.
/// Suites that run meanwhile are not disturbed: configured sessions never use the shared connector. No session
/// on Linux reaches a registered protocol for http(s) (FoundationNetworking always lists its own
/// HTTP protocol first), so nothing here sends a request through a real shared session.
@Suite(.serialized) struct SharedSessionInterceptionTests {
    func load(_ path: String) async throws -> URLProtocolRouteTests.Collector {
        let collector = URLProtocolRouteTests.Collector()
        let loader = SharedSessionURLProtocol(request: URLRequest(url: URL(string: "http://api.example.test\(path)")!),
                                              cachedResponse: nil, client: collector)
        loader.startLoading()
        try await collector.waitUntilDone()
        return collector
    }

    @Test("while it runs, a protocol created for a session nobody configured answers from the connector")
    func interceptsWhileRunning() async throws {
        let connector = CassetteConnector(cassette: URLProtocolRouteTests.cassette)
        let collector = try await SharedSessionInterception.run(with: connector) { try await load("/who") }
        #expect((collector.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: collector.data, as: UTF8.self) == "the cassette")
        #expect(connector.player.playedCounts().map(\.count) == [1])
    }

    @Test("only while it runs does the registered protocol claim requests; afterwards nothing answers")
    func nothingAnswersAfterwards() async throws {
        let request = URLRequest(url: URL(string: "http://api.example.test/who")!)
        await SharedSessionInterception.run(with: CassetteConnector(cassette: URLProtocolRouteTests.cassette)) {
            #expect(SharedSessionURLProtocol.canInit(with: request))
        }
        #expect(!SharedSessionURLProtocol.canInit(with: request) || SharedSessionInterception.isRunning)
        let collector = try await load("/who")
        guard case .noConnector = collector.error as? URLProtocolAdapterError else {
            Issue.record("expected noConnector, got \(String(describing: collector.error))")
            return
        }
    }

    @Test("a miss fails with the cassette's diagnosis")
    func missFailsWithTheDiagnosis() async throws {
        let collector = try await SharedSessionInterception.run(with: CassetteConnector(cassette: URLProtocolRouteTests.cassette)) {
            try await load("/nobody")
        }
        let error = try #require(collector.error as? UnmatchedRequestError)
        #expect(error.description.contains("path"))
    }

    @Test("interceptions never overlap: each waits for the one before to end")
    func interceptionsAreSerialised() async throws {
        let inside = Locked((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await SharedSessionInterception.run(with: CassetteConnector(cassette: URLProtocolRouteTests.cassette)) {
                        inside.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        try await Task.sleep(for: .milliseconds(20))
                        inside.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(inside.withLock { $0.most } == 1)
    }
}
