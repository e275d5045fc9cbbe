import Foundation

extension Data {
    /// How often a text occurs in these bytes.
    public func occurrences(of text: String) -> Int {
        let needle = Data(text.utf8)
        var count = 0
        var start = startIndex
        while let range = self.range(of: needle, in: start..<endIndex) {
            count += 1
            start = range.upperBound
        }
        return count
    }
}

extension Data {
    /// These bytes with every occurrence of `old` replaced by `new`.
    public func replacing(_ old: Data, with new: Data) -> Data {
        var result = Data()
        var start = startIndex
        while let range = self.range(of: old, in: start..<endIndex) {
            result.append(self[start..<range.lowerBound])
            result.append(new)
            start = range.upperBound
        }
        result.append(self[start..<endIndex])
        return result
    }
}
