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
    /// (`Data.range(of:in:)` copies what it searches on Linux). The C library's `memchr` and
    /// `memcmp` find each candidate: a byte-by-byte loop in a debug build took seconds a pass over
    /// the hardening suite's 33 MiB JSON body.
    private func ranges(of needle: Data) -> [Range<Int>] {
        let needle = [UInt8](needle)
        guard let first = needle.first else { return [] }
        return withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard let base = bytes.baseAddress else { return [] }
            var found: [Range<Int>] = []
            var index = 0
            while index + needle.count <= bytes.count {
                guard let hit = memchr(base + index, Int32(first), bytes.count - needle.count + 1 - index) else { break }
                let offset = base.distance(to: UnsafeRawPointer(hit))
                if needle.withUnsafeBytes({ memcmp(base + offset, $0.baseAddress!, needle.count) }) == 0 {
                    found.append(offset..<offset + needle.count)
                    index = offset + needle.count
                } else {
                    index = offset + 1
                }
            }
            return found
        }
    }
}
