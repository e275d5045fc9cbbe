import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOSSL
import TapedeckTestSupport

/// Real HTTP clients for the tests.
enum Clients {
    /// Runs `body` with an AsyncHTTPClient that is always shut down. Its bounds (connecting 10 s, a
    /// request 20 s) stretch with ``Deadlines/scale``: under a sanitizer every suite runs at once,
    /// and a fixed 10 s to connect failed on a loaded machine.
    static func withHTTPClient<T>(_ configuration: HTTPClient.Configuration = HTTPClient.Configuration(redirectConfiguration: .disallow),
                                  _ body: (HTTPClient) async throws -> T) async throws -> T {
        var configuration = configuration
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(Int64(Deadlines.clientCall)),
                                                                 read: .seconds(Int64(requestSeconds)))
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// AsyncHTTPClient's configuration for going through Tapedeck's forward proxy on `proxyPort`,
    /// trusting the CA whose certificate is `authorityPEM` (the proxy's local CA), without redirects.
    static func throughProxy(port proxyPort: Int, trusting authorityPEM: String) throws -> HTTPClient.Configuration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(authorityPEM.utf8)))
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        configuration.proxy = .server(host: "127.0.0.1", port: proxyPort)
        return configuration
    }

    /// Sends a request with AsyncHTTPClient and collects the whole body.
    static func send(_ client: HTTPClient, _ method: HTTPMethod = .GET, _ url: String, headers: [(String, String)] = [],
                     body: Data? = nil) async throws -> (status: Int, headers: HTTPHeaders, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(Int64(requestSeconds)))
        let buffer = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), response.headers, Data(buffer.readableBytesView))
    }

    /// The seconds one request may take: 20, scaled.
    private static let requestSeconds = 20 * Deadlines.scale

    /// A URLSession that never uses a cache or the environment's proxy.
    static func urlSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        configuration.timeoutIntervalForRequest = TimeInterval(requestSeconds)
        return URLSession(configuration: configuration)
    }
}
