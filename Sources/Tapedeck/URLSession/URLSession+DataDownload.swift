import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// Downloads to a file through a data task: what `download(for:)` does, but served by
    /// ``ConnectorURLProtocol`` on Linux, where download tasks cannot be replayed.
    ///
    /// - Parameters:
    ///   - request: the request, sent as a data task.
    ///   - file: where to write; by default a new file in the temporary directory.
    /// - Returns: the file written and the response.
    public func dataDownload(for request: URLRequest, to file: URL? = nil) async throws -> (URL, URLResponse) {
        let (data, response) = try await data(for: request)
        let destination = file ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("tapedeck-download-\(UUID().uuidString)")
        try data.write(to: destination, options: .atomic)
        return (destination, response)
    }
}
