import Foundation
@_spi(Internals) import TapedeckCore

/// Finds a configuration's ``ConnectorRoute`` from the token in its `httpAdditionalHeaders`:
/// how ``ConnectorURLProtocol`` finds its connector on Apple platforms.
///
/// Apple's loading system never hands a custom protocol the configuration's `urlCache` (the
/// route FoundationNetworking uses), but it does merge the configuration's
/// `httpAdditionalHeaders` into the request the protocol sees. So every configuration made by
/// ``Foundation/URLSessionConfiguration/replaying(_:base:)`` carries a random token in the
/// `Tapedeck-Route` header; the protocol looks it up here and removes the header before the
/// connector matches the request. The table holds routes weakly (the configuration's
/// `urlCache` keeps its route alive), so it never keeps a test's cassette after its session.
final class RouteTable: Sendable {
    /// The header that carries a configuration's token.
    static let header = "Tapedeck-Route"

    /// The table of this process: a lookup of tokens no two configurations share, so parallel
    /// tests never see each other's entries.
    static let process = RouteTable()

    private final class WeakRoute: @unchecked Sendable {
        weak var route: ConnectorRoute?
        init(_ route: ConnectorRoute) { self.route = route }
    }

    private let routes = Locked<[String: WeakRoute]>([:])

    /// Registers a route and returns its new token; entries whose route is gone are dropped.
    func register(_ route: ConnectorRoute) -> String {
        let token = UUID().uuidString
        routes.withLock { table in
            table = table.filter { $0.value.route != nil }
            table[token] = WeakRoute(route)
        }
        return token
    }

    /// The route registered under a token, if it still exists.
    func route(for token: String?) -> ConnectorRoute? {
        guard let token else { return nil }
        return routes.withLock { $0[token]?.route }
    }
}
