import Foundation
import TapedeckTestSupport

extension Data {
    /// The status code of the first HTTP response in these bytes, if any.
    var httpStatus: Int? {
        guard count >= 12, starts(with: Data("HTTP/1.".utf8)) else { return nil }
        return Int(String(decoding: self[index(startIndex, offsetBy: 9)..<index(startIndex, offsetBy: 12)], as: UTF8.self))
    }

    /// How many HTTP responses start in these bytes.
    var httpResponseCount: Int { occurrences(of: "HTTP/1.1 ") }
}
