import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionConfiguration {
    /// A configuration whose sessions are answered by `connector` through ``ConnectorURLProtocol``.
    ///
    /// The connector rides in the configuration itself (a `ConnectorRoute`), so each call
    /// gives independent playback state; sessions made from the same configuration share it.
    ///
    /// - Parameters:
    ///   - connector: what answers every task of the sessions made from the configuration.
    ///   - base: copied; its `protocolClasses` and `urlCache` are replaced; its
    ///     `httpAdditionalHeaders` are added to requests that lack them, as URLSession does.
    public static func replaying(_ connector: any HTTPConnector, base: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        let configuration = base.copy() as! URLSessionConfiguration
        configuration.protocolClasses = [ConnectorURLProtocol.self]
        var additionalHeaders: [String: String] = [:]
        for (name, value) in base.httpAdditionalHeaders ?? [:] {
            guard let name = name as? String else { continue }
            additionalHeaders[name] = value as? String ?? "\(value)"
        }
        let route = ConnectorRoute(connector: connector, additionalHeaders: additionalHeaders)
        configuration.urlCache = route
        var headers = base.httpAdditionalHeaders ?? [:]
        headers[RouteTable.header] = route.token
        configuration.httpAdditionalHeaders = headers
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// A configuration that replays a cassette file with the core's matching, exhaustion and latency.
    ///
    /// - Throws: `CassetteError` when the file is missing or invalid.
    public static func replaying(cassette file: URL, options: PlaybackOptions = PlaybackOptions(),
                                 base: URLSessionConfiguration = .ephemeral) throws -> URLSessionConfiguration {
        replaying(try CassetteConnector(cassette: file, options: options), base: base)
    }

    /// A configuration that records through the live network into a cassette (`TAPEDECK_MODE` overrides `mode`).
    ///
    /// - Parameters:
    ///   - file: the cassette to record into (created when missing).
    ///   - mode: the mode unless `TAPEDECK_MODE` in `environment` names another.
    ///   - redaction: what is masked before anything is written; credentials by default.
    ///   - options: matching, exhaustion, latency, secrets and expiry for what is replayed.
    ///   - base: the configuration returned is a copy of it (see ``replaying(_:base:)``).
    ///   - live: the configuration of the session that really sends; by default ephemeral.
    ///   - environment: where `TAPEDECK_MODE` is read.
    public static func recording(cassette file: URL, mode: RecordMode = .newEpisodes, redaction: RedactionRules = .defaults,
                                 options: PlaybackOptions = PlaybackOptions(), base: URLSessionConfiguration = .ephemeral,
                                 live: URLSessionConfiguration = .ephemeral,
                                 environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URLSessionConfiguration {
        let connector = try RecordingConnector(live: URLSessionConnector(session: URLSession(configuration: live)),
                                               cassette: file, mode: mode, redaction: redaction, options: options,
                                               environment: environment)
        return replaying(connector, base: base)
    }

    /// The connector this configuration's sessions are answered by, if it was made by Tapedeck.
    public var tapedeckConnector: (any HTTPConnector)? {
        (urlCache as? ConnectorRoute)?.connector
    }
}
