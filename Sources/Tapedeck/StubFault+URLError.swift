import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubFault {
    /// The error URLSession gives for this broken connection: a lost connection for `reset`,
    /// `empty`, `truncate`, `rst-stream` and `goaway`, a bad server response for `malformed`.
    func urlError(for url: String) -> URLError {
        let code: URLError.Code = self == .malformed ? .badServerResponse : .networkConnectionLost
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "Tapedeck stub fault \(rawValue)"]
        if let failing = URL(string: url) { userInfo[NSURLErrorFailingURLErrorKey] = failing }
        return URLError(code, userInfo: userInfo)
    }
}
