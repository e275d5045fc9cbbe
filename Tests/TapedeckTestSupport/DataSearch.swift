import Foundation

extension Data {
    /// How often a text occurs in these bytes.
    public func occurrences(of text: String) -> Int {
        ranges(of: Data(text.utf8)).count
    }

    /// These bytes with every occurrence of `old` replaced by `new`.
    public func replacing(_ old: Data, with new: Data) -> Data {
        var result = Data()
        var start = startIndex
        for found in ranges(of: old) {
            result.append(self[start..<startIndex + found.lowerBound])
            result.append(new)
            start = startIndex + found.upperBound
        }
        result.append(self[start...])
        return result
    }

    /// Where `needle` occurs, as offsets from the start, in order and not overlapping: one pass over
    /// the bytes, so a large body with many occurrences takes no longer than one with few
    /// (`Data.range(of:in:)` copies what it searches on Linux).
    private func ranges(of needle: Data) -> [Range<Int>] {
        let needle = [UInt8](needle)
        guard let first = needle.first else { return [] }
        return withUnsafeBytes { bytes in
            var found: [Range<Int>] = []
            var index = 0
            while index + needle.count <= bytes.count {
                if bytes[index] == first && needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) {
                    found.append(index..<index + needle.count)
                    index += needle.count
                } else {
                    index += 1
                }
            }
            return found
        }
    }
}
