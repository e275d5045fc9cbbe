import Foundation

/// Decodes a large cassette on every core: the top-level `interactions` array is cut into
/// slices of whole interactions with a light structural scan, and each slice is decoded by
/// its own `JSONDecoder` at the same time.
///
/// Any surprise (an unusual layout, a slice that fails) returns nil, and the caller decodes
/// the whole file sequentially, which also gives the exact error place.
enum InteractionSlices {
    /// Below this size a cassette is decoded in one piece.
    static let parallelThreshold = 4 << 20

    /// The cassette, or nil when the caller should decode sequentially.
    static func decode(_ data: Data, configure: @Sendable () -> JSONDecoder) -> Cassette? {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard data.count >= parallelThreshold, cores > 1,
              let layout = data.withUnsafeBytes({ scan($0) }), !layout.elements.isEmpty else { return nil }
        var skeletonBytes = Data(data[data.startIndex ..< data.startIndex + layout.array.lowerBound])
        skeletonBytes.append(contentsOf: "[]".utf8)
        skeletonBytes.append(data[(data.startIndex + layout.array.upperBound)...])
        guard var cassette = try? configure().decode(Cassette.self, from: skeletonBytes) else { return nil }

        let sliceCount = min(layout.elements.count, cores * 4)
        let perSlice = (layout.elements.count + sliceCount - 1) / sliceCount
        let results = Locked<[[Interaction]?]>(Array(repeating: nil, count: sliceCount))
        DispatchQueue.concurrentPerform(iterations: sliceCount) { slice in
            let first = slice * perSlice
            let last = min(first + perSlice, layout.elements.count) - 1
            guard first <= last else {
                results.withLock { $0[slice] = [] }
                return
            }
            var bytes = Data("[".utf8)
            bytes.append(data[(data.startIndex + layout.elements[first].lowerBound) ..< (data.startIndex + layout.elements[last].upperBound)])
            bytes.append(contentsOf: "]".utf8)
            let decoded = try? configure().decode([Interaction].self, from: bytes)
            results.withLock { $0[slice] = decoded }
        }
        let slices = results.withLock { $0 }
        guard slices.allSatisfy({ $0 != nil }) else { return nil }
        cassette.interactions = slices.flatMap { $0! }
        return cassette
    }

    /// The byte range of the top-level `interactions` array and of each object in it.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> (array: Range<Int>, elements: [Range<Int>])? {
        var depth = 0
        var index = 0
        var lastKeyAtTop: Range<Int>?
        var arrayStart: Int?
        var elementStart = 0
        var elements: [Range<Int>] = []
        let interactionsKey = Array("interactions".utf8)
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let start = index + 1
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                if depth == 1 { lastKeyAtTop = start ..< index }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 1, byte == UInt8(ascii: "["), arrayStart == nil, let key = lastKeyAtTop,
                   key.count == interactionsKey.count, zip(bytes[key], interactionsKey).allSatisfy({ $0 == $1 }) {
                    arrayStart = index
                } else if depth == 2, arrayStart != nil, byte == UInt8(ascii: "{") {
                    elementStart = index
                } else if depth == 2, arrayStart != nil {
                    return nil
                }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 2, arrayStart != nil { elements.append(elementStart ..< index + 1) }
                if depth == 1, let start = arrayStart, byte == UInt8(ascii: "]") { return (start ..< index + 1, elements) }
                if depth < 0 { return nil }
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
