import Foundation
import HTTPTypes

/// Sends an HTTP request and returns the response with its whole body.
///
/// The seam an API client depends on: production code injects a live connector, tests a
/// ``CassetteConnector`` or a ``RecordingConnector``.
public protocol HTTPConnector: Sendable {
    /// Sends a request with an optional body.
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data)
}

extension HTTPConnector {
    /// Sends a request in the completion-handler style; the returned task cancels it.
    ///
    /// `complete` is called exactly once: with the response, with the error, or with
    /// `CancellationError` after ``ConnectorTask/cancel()``.
    @discardableResult
    public func execute(request: HTTPRequest, body: Data? = nil,
                        complete: @escaping @Sendable (Result<(HTTPResponse, Data), any Error>) -> Void) -> ConnectorTask {
        ConnectorTask(Task {
            do {
                let result = try await send(request, body: body)
                try Task.checkCancellation()
                complete(.success(result))
            } catch {
                complete(.failure(error))
            }
        })
    }
}

/// A request started with ``HTTPConnector/execute(request:body:complete:)``.
public struct ConnectorTask: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) {
        self.task = task
    }

    /// Cancels the request; its completion receives `CancellationError` unless it already finished.
    public func cancel() {
        task.cancel()
    }

    /// Waits until the completion handler has run.
    public func wait() async {
        await task.value
    }
}
