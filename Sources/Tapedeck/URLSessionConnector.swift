import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A live connector on URLSession, for recording and for production code.
public struct URLSessionConnector: HTTPConnector {
    /// The session requests go through.
    public let session: URLSession

    /// Creates a connector; by default an ephemeral session with no cache.
    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    /// Sends the request through URLSession.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        guard let url = request.url else { throw URLSessionConnectorError.noURL(request.path ?? "") }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headerFields { urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName) }
        urlRequest.httpBody = body
        let (data, response) = try await session.data(for: Self.markedLive(urlRequest))
        guard let http = response as? HTTPURLResponse else { throw URLSessionConnectorError.notHTTP(url.absoluteString) }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            guard let name = (name as? String).flatMap({ HTTPField.Name($0) }), let value = value as? String else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        return (HTTPResponse(status: .init(code: http.statusCode), headerFields: fields), data)
    }
}

extension URLSessionConnector {
    /// The request marked as sent by a live connector, so that ``ConnectorURLProtocol``, when
    /// ``SharedSessionInterception`` registers it process-wide, lets it reach the network.
    static func markedLive(_ request: URLRequest) -> URLRequest {
        guard let mutable = (request as NSURLRequest).mutableCopy() as? NSMutableURLRequest else { return request }
        URLProtocol.setProperty(true, forKey: ConnectorURLProtocol.liveRequestKey, in: mutable)
        return mutable as URLRequest
    }
}

/// A request URLSession cannot send.
public enum URLSessionConnectorError: Error, CustomStringConvertible, Sendable {
    /// The request names no scheme and authority.
    case noURL(String)
    /// The response was not HTTP.
    case notHTTP(String)

    public var description: String {
        switch self {
        case .noURL(let path): return "request \(path) has no scheme and authority, so URLSession cannot send it"
        case .notHTTP(let url): return "the response from \(url) is not HTTP"
        }
    }
}
