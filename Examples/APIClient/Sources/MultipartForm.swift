import Foundation

/// A `multipart/form-data` body: text fields and files.
public struct MultipartForm: Sendable {
    /// One part.
    public struct Part: Sendable {
        /// The field name.
        public var name: String
        /// The file name, for a file part.
        public var fileName: String?
        /// The part's content type, for a file part.
        public var contentType: String?
        /// The bytes.
        public var data: Data
    }

    /// The boundary; random by default (cassette matching ignores it).
    public var boundary: String
    /// The parts, in order.
    public var parts: [Part] = []

    /// Creates an empty form.
    public init(boundary: String = "APIClient-\(UUID().uuidString)") {
        self.boundary = boundary
    }

    /// Adds a text field.
    public mutating func addField(_ name: String, _ value: String) {
        parts.append(Part(name: name, data: Data(value.utf8)))
    }

    /// Adds a file.
    public mutating func addFile(_ name: String, fileName: String, contentType: String, data: Data) {
        parts.append(Part(name: name, fileName: fileName, contentType: contentType, data: data))
    }

    /// The encoded body.
    func encoded() -> Data {
        var body = Data()
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let fileName = part.fileName { head += "; filename=\"\(fileName)\"" }
            head += "\r\n"
            if let contentType = part.contentType { head += "Content-Type: \(contentType)\r\n" }
            body.append(Data((head + "\r\n").utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
    }
}
