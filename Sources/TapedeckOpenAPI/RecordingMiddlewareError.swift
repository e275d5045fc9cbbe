/// The middleware's connector was called outside `intercept`.
struct RecordingMiddlewareError: Error, CustomStringConvertible {
    var description: String { "RecordingMiddleware's connector can only forward from inside intercept(_:body:baseURL:operationID:next:)" }
}
