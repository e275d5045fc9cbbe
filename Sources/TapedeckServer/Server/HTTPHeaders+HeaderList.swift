import NIOHTTP1
import TapedeckCore
import TapedeckNIO

// The one translation between the cassette's headers and SwiftNIO's, both ways, in order.

extension HTTPHeaders {
    /// A cassette's headers (or trailers) as SwiftNIO's, made legal for the wire (``legal``).
    init(_ list: HeaderList) {
        self = HTTPHeaders(list.map { ($0.name, $0.value) }).legal
    }
}

extension HeaderList {
    /// SwiftNIO's headers (or trailers) as the cassette keeps them.
    init(_ headers: HTTPHeaders) {
        self.init(headers.map { HeaderField(name: $0.name, value: $0.value) })
    }
}
