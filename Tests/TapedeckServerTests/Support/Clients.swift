import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOSSL

/// Real HTTP clients for the tests.
enum Clients {
    /// Runs `body` with an AsyncHTTPClient that is always shut down.
    static func withHTTPClient<T>(_ configuration: HTTPClient.Configuration = HTTPClient.Configuration(redirectConfiguration: .disallow),
                                  _ body: (HTTPClient) async throws -> T) async throws -> T {
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
        let response = try await client.execute(request, timeout: .seconds(20))
        let buffer = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), response.headers, Data(buffer.readableBytesView))
    }

    /// A URLSession that never uses a cache or the environment's proxy.
    static func urlSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        configuration.timeoutIntervalForRequest = 20
        return URLSession(configuration: configuration)
    }
}
