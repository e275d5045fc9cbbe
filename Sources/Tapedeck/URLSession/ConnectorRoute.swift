import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Carries a connector inside a `URLSessionConfiguration`, so ``ConnectorURLProtocol`` finds
/// the connector of *its own* configuration.
///
/// Two ways lead a protocol to its route, one per loading system; a configuration made by
/// ``Foundation/URLSessionConfiguration/replaying(_:base:)`` carries both:
/// - FoundationNetworking (Linux) hands the protocol a cached response from the
///   configuration's `urlCache`, and this route is that cache (below).
/// - Apple's loading system never asks a custom cache for a protocol, but merges the
///   configuration's `httpAdditionalHeaders` into the request: a token there leads to the
///   route through ``RouteTable``.
///
/// Foundation creates a URLProtocol itself, from the class listed in `protocolClasses`, and
/// hands it only the task, the request and a cached response. On Linux the task's session is
/// internal and `httpAdditionalHeaders` never reach a custom protocol's request, but before
/// creating the protocol for a data or upload task FoundationNetworking asks the
/// configuration's `urlCache` for a cached response *for that task*. A `ConnectorRoute` is
/// that cache: it never stores anything and answers every task with a marker response whose
/// `userInfo` points back to the route, and so to the connector. Every configuration made by
/// ``Foundation/URLSessionConfiguration/replaying(_:base:)`` gets its own route, hence its own
/// cassette and playback state: parallel tests with different cassettes never meet.
package final class ConnectorRoute: URLCache, @unchecked Sendable {
    /// The connector every request of the configuration goes to.
    package let connector: any HTTPConnector
    /// The configuration's `httpAdditionalHeaders`, added to requests that lack them, as
    /// FoundationNetworking's own HTTP protocol does (it never shows them to a custom protocol).
    package let additionalHeaders: [String: String]
    /// The token that names this route in the `Tapedeck-Route` header (Apple's loading system).
    package private(set) var token = ""

    /// The `userInfo` key of the marker response.
    static let userInfoKey = "dev.tapedeck.route"

    /// Creates a route to a connector.
    package init(connector: any HTTPConnector, additionalHeaders: [String: String] = [:]) {
        self.connector = connector
        self.additionalHeaders = additionalHeaders
        super.init(memoryCapacity: 0, diskCapacity: 0, diskPath: FileManager.default.temporaryDirectory.path)
        token = RouteTable.process.register(self)
    }

    /// Answers with the marker response that leads the protocol to ``connector``.
    package override func getCachedResponse(for dataTask: URLSessionDataTask,
                                           completionHandler: @Sendable @escaping (CachedURLResponse?) -> Void) {
        completionHandler(marker(for: dataTask.currentRequest?.url))
    }

    /// Answers with the marker response that leads the protocol to ``connector``.
    package override func cachedResponse(for request: URLRequest) -> CachedURLResponse? {
        marker(for: request.url)
    }

    /// Stores nothing: replayed and recorded answers never come from a cache.
    package override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for request: URLRequest) {}

    /// Stores nothing: replayed and recorded answers never come from a cache.
    package override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for dataTask: URLSessionDataTask) {}

    private func marker(for url: URL?) -> CachedURLResponse {
        let response = URLResponse(url: url ?? URL(string: "about:blank")!, mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
        return CachedURLResponse(response: response, data: Data(), userInfo: [Self.userInfoKey: self], storagePolicy: .notAllowed)
    }

    /// The route a protocol was created with, read from its cached response.
    static func route(of cachedResponse: CachedURLResponse?) -> ConnectorRoute? {
        cachedResponse?.userInfo?[userInfoKey] as? ConnectorRoute
    }
}
