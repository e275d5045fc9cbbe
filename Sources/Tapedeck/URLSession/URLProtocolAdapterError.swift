import Foundation

/// Why ``ConnectorURLProtocol`` could not serve a URLSession task.
public enum URLProtocolAdapterError: Error, CustomStringConvertible, Sendable {
    /// The session's configuration carries no `ConnectorRoute` (its `urlCache` was replaced).
    case noConnector(url: String)
    /// A download task: FoundationNetworking lets only its built-in protocols hand over the file.
    case downloadTaskUnsupported(url: String)
    /// An upload task whose body FoundationNetworking keeps out of the request a URLProtocol sees.
    case hiddenUploadBody(url: String)
    /// The request's `httpBodyStream` failed while being read.
    case unreadableBodyStream(url: String, reason: String)
    /// The request has no absolute http or https URL.
    case invalidURL(String)

    public var description: String {
        switch self {
        case .noConnector(let url):
            return "\(url): this URLSession has no Tapedeck connector; build its configuration with "
                + "URLSessionConfiguration.replaying(...) or .recording(...) and keep its urlCache"
        case .downloadTaskUnsupported(let url):
            return "\(url): download tasks cannot be replayed through a URLProtocol on Linux (FoundationNetworking "
                + "only lets its built-in protocols hand over the downloaded file); use session.dataDownload(for:to:) "
                + "or data(for:) and write the data yourself"
        case .hiddenUploadBody(let url):
            return "\(url): FoundationNetworking does not show a URLProtocol the body of uploadTask(with:from:), "
                + "upload(for:from:) or upload(for:fromFile:); put the body in request.httpBody (data(for:)) or "
                + "request.httpBodyStream (uploadTask(withStreamedRequest:)) instead"
        case .unreadableBodyStream(let url, let reason):
            return "\(url): the request body stream could not be read: \(reason)"
        case .invalidURL(let url):
            return "\(url) is not an absolute http or https URL"
        }
    }
}
