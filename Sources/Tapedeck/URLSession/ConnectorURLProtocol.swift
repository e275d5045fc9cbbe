import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
@_spi(Internals) import TapedeckCore
#endif

/// A URLProtocol that answers URLSession tasks from an ``HTTPConnector``: a
/// ``CassetteConnector`` to replay, a ``RecordingConnector`` to record through the network.
///
/// Install it through a configuration's `protocolClasses`:
/// `URLSessionConfiguration.replaying(_:base:)` and
/// `URLSessionConfiguration.recording(cassette:mode:redaction:options:base:live:environment:)` do
/// it for you. Each configuration carries its own connector in a `ConnectorRoute`, found
/// through the configuration's `urlCache` (FoundationNetworking) or the `Tapedeck-Route`
/// token in its `httpAdditionalHeaders` (Apple's loading system): there is no shared
/// state between configurations, so parallel tests with different cassettes are safe. The one
/// exception is ``SharedSessionInterception``, which registers its subclass
/// ``SharedSessionURLProtocol`` process-wide, one test at a time; sessions configured here never
/// fall back to that shared connector.
///
/// Served: data tasks, async `data(for:)`, and uploads whose body is in the request
/// (`httpBody`, or `httpBodyStream` with `uploadTask(withStreamedRequest:)`); on Apple
/// platforms also download tasks. On Linux, download tasks and `upload(for:from:)` fail with a
/// typed ``URLProtocolAdapterError`` that names the alternative.
public class ConnectorURLProtocol: URLProtocol {
    private let work = Locked<Task<Void, Never>?>(nil)

    /// The request property that marks a request a live connector sends, so that a protocol
    /// registered process-wide lets it go to the network.
    static let liveRequestKey = "dev.tapedeck.live"

    /// Serves http and https requests, except those a live connector sends on.
    public override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return URLProtocol.property(forKey: liveRequestKey, in: request) == nil
    }

    /// Serves the task's request when it is http or https.
    public override class func canInit(with task: URLSessionTask) -> Bool {
        guard let request = task.currentRequest ?? task.originalRequest else { return false }
        return canInit(with: request)
    }

    /// The request unchanged: matching is the cassette's business.
    public override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// Sends the request to the configuration's connector and reports the answer to URLSession.
    public override func startLoading() {
        let request = self.request
        let url = request.url?.absoluteString ?? ""
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            return fail(URLProtocolAdapterError.downloadTaskUnsupported(url: url))
        }
        #endif
        guard let route = self.route() else {
            return fail(URLProtocolAdapterError.noConnector(url: url))
        }
        let connector = route.connector
        guard var httpRequest = request.httpRequest(), let requestURL = request.url else {
            return fail(URLProtocolAdapterError.invalidURL(url))
        }
        httpRequest.headerFields[HTTPField.Name(RouteTable.header)!] = nil
        for (name, value) in route.additionalHeaders.sorted(by: { $0.key < $1.key }) {
            guard let fieldName = HTTPField.Name(name), httpRequest.headerFields[fieldName] == nil else { continue }
            httpRequest.headerFields[fieldName] = value
        }
        let body: Data?
        do {
            body = try request.bodyData()
        } catch {
            return fail(error)
        }
        if body == nil, task is URLSessionUploadTask {
            return fail(URLProtocolAdapterError.hiddenUploadBody(url: url))
        }
        let owner = Unchecked(self)
        let task = Task {
            let loader = owner.value
            do {
                let (response, data) = try await connector.send(httpRequest, body: body)
                guard !Task.isCancelled else { return }
                guard let urlResponse = HTTPURLResponse(response, url: requestURL) else {
                    return loader.fail(URLProtocolAdapterError.invalidURL(url))
                }
                loader.client?.urlProtocol(loader, didReceive: urlResponse, cacheStoragePolicy: .notAllowed)
                if !data.isEmpty { loader.client?.urlProtocol(loader, didLoad: data) }
                loader.client?.urlProtocolDidFinishLoading(loader)
            } catch {
                guard !Task.isCancelled else { return }
                loader.fail(error)
            }
        }
        work.withLock { $0 = task }
    }

    /// The route to this protocol's connector: the configuration's, through its `urlCache`
    /// (FoundationNetworking) or its `Tapedeck-Route` token (Apple's loading system).
    func route() -> ConnectorRoute? {
        ConnectorRoute.route(of: cachedResponse) ?? RouteTable.process.route(for: request.value(forHTTPHeaderField: RouteTable.header))
    }

    /// Cancels the connector call; URLSession reports the cancellation itself.
    public override func stopLoading() {
        work.withLock { $0?.cancel() }
    }

    private func fail(_ error: any Error) {
        client?.urlProtocol(self, didFailWithError: error)
    }
}

/// Hands the protocol to the task that serves it. URLProtocol is not `Sendable`, but its client
/// (FoundationNetworking's `_ProtocolClient`) takes calls from any thread and the protocol's
/// own mutable state is behind a `Locked`.
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
