import HTTPTypes

extension HTTPFields {
    /// The elements of a list-valued field (RFC 9110 section 5.6.1) over every line it came in:
    /// split at commas and trimmed, empty elements left out (`TE`, `Upgrade`, `Sec-WebSocket-Extensions`).
    package subscript(elementsOf name: HTTPField.Name) -> [Substring] {
        self[values: name].flatMap { value in
            value.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        }
    }
}

extension Substring {
    /// The text without the spaces and tabs around it.
    fileprivate func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
