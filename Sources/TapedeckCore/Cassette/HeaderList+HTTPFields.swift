import HTTPTypes

extension HTTPFields {
    /// Header fields from a cassette's list; names HTTP cannot carry are left out.
    package init(_ headers: HeaderList) {
        self.init()
        for field in headers {
            guard let name = HTTPField.Name(field.name) else { continue }
            append(HTTPField(name: name, value: field.value))
        }
    }
}

extension HeaderList {
    /// A cassette header list from swift-http-types fields, hop-by-hop ones removed.
    public init(_ fields: HTTPFields) {
        self.init(fields.map { HeaderField(name: $0.name.rawName, value: $0.value) })
        removeHopByHop()
    }
}
