import NIOHTTP1
import TapedeckCore

// The one translation between the cassette's headers and SwiftNIO's, both ways, in order.

extension HTTPHeaders {
    /// A cassette's headers (or trailers) as SwiftNIO's.
    init(_ list: HeaderList) {
        self.init(list.map { ($0.name, $0.value) })
    }
}

extension HeaderList {
    /// SwiftNIO's headers (or trailers) as the cassette keeps them.
    init(_ headers: HTTPHeaders) {
        self.init(headers.map { HeaderField(name: $0.name, value: $0.value) })
    }
}
