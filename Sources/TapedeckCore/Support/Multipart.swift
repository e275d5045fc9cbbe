import Foundation

/// The parts of a `multipart/form-data` body, read without regard to the boundary string.
enum Multipart {
    /// One part: its form name, file name, content type and bytes.
    struct Part: Sendable, Hashable {
        var name: String?
        var filename: String?
        var contentType: String?
        var content: Data
    }

    /// The boundary named by a Content-Type such as `multipart/form-data; boundary=XyZ`.
    static func boundary(fromContentType contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    /// Splits a body into parts; nil when it is not well-formed multipart with this boundary.
    static func parts(of body: Data, boundary: String) -> [Part]? {
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        guard var cursor = body.range(of: delimiter)?.upperBound else { return nil }
        var parts: [Part] = []
        while true {
            // After a delimiter: `--` closes the body, CRLF starts a part.
            if body[cursor...].starts(with: Data("--".utf8)) { return parts }
            guard body[cursor...].starts(with: Data("\r\n".utf8)) else { return nil }
            let partStart = cursor + 2
            guard let next = body.range(of: Data("\r\n".utf8) + delimiter, in: partStart..<body.endIndex) else { return nil }
            let raw = body[partStart..<next.lowerBound]
            let split = raw.range(of: headerEnd)
            let headerBytes = split.map { raw[raw.startIndex..<$0.lowerBound] } ?? raw[raw.startIndex..<raw.startIndex]
            let content = split.map { raw[$0.upperBound...] } ?? raw
            parts.append(part(headers: String(decoding: headerBytes, as: UTF8.self), content: Data(content)))
            cursor = next.upperBound
        }
    }

    private static func part(headers: String, content: Data) -> Part {
        var result = Part(name: nil, filename: nil, contentType: nil, content: content)
        for line in headers.components(separatedBy: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let value = pair[1].trimmingCharacters(in: .whitespaces)
            switch pair[0].trimmingCharacters(in: .whitespaces).lowercased() {
            case "content-type": result.contentType = value.lowercased()
            case "content-disposition":
                result.name = parameter("name", in: value)
                result.filename = parameter("filename", in: value)
            default: break
            }
        }
        return result
    }

    private static func parameter(_ name: String, in value: String) -> String? {
        for item in value.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}
