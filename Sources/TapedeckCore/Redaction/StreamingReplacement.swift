import Foundation

/// Replaces byte strings in a body read piece by piece: the secrets' values by their placeholders
/// in a side file too large to read whole (``Secrets/concealingStream()``). Of each piece it holds
/// back only the last bytes that could begin a value the next piece completes, so a value split
/// between two pieces is found like any other.
///
/// At each place the longest value that starts there is replaced, and the search goes on after
/// it. ``Secrets`` replaces values in bodies held whole the same way, with the body as one piece.
/// Feed the pieces in order to ``update(_:)`` and call ``finish()`` once; the outputs joined are
/// the body with every value replaced.
package struct StreamingReplacement: Sendable {
    /// Each value and what replaces it, longest value first.
    private let pairs: [(value: [UInt8], replacement: [UInt8])]
    /// The length of the longest value.
    private let longest: Int
    /// Which bytes some value starts with: any other byte is passed on at once.
    private let starts: [Bool]
    /// The end of the last piece, not yet passed on.
    private var pending: [UInt8] = []

    /// Creates a replacement of each pair's first string by its second; empty strings are ignored.
    package init(_ pairs: [(String, String)]) {
        let kept = pairs.map { (value: Array($0.0.utf8), replacement: Array($0.1.utf8)) }
            .filter { !$0.value.isEmpty }
            .sorted { $0.value.count > $1.value.count }
        self.pairs = kept
        longest = kept.first?.value.count ?? 0
        var starts = [Bool](repeating: false, count: 256)
        for pair in kept { starts[Int(pair.value[0])] = true }
        self.starts = starts
    }

    /// Takes the next piece; returns the bytes that can be passed on.
    package mutating func update(_ piece: Data) -> Data {
        pending.append(contentsOf: piece)
        return drain(isLast: false)
    }

    /// Ends the body; returns the last bytes.
    package mutating func finish() -> Data {
        drain(isLast: true)
    }

    /// Passes on what is pending, up to where a value could still be cut off (unless it is the end).
    private mutating func drain(isLast: Bool) -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(pending.count)
        var index = 0
        pending.withUnsafeBufferPointer { bytes in
            while index < bytes.count {
                guard starts[Int(bytes[index])] else {
                    output.append(bytes[index])
                    index += 1
                    continue
                }
                if !isLast && bytes.count - index < longest { break }  // the next piece may complete a value here
                if let pair = pairs.first(where: { Self.bytes(bytes, at: index, startWith: $0.value) }) {
                    output.append(contentsOf: pair.replacement)
                    index += pair.value.count
                } else {
                    output.append(bytes[index])
                    index += 1
                }
            }
        }
        pending.removeFirst(index)
        return Data(output)
    }

    private static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, startWith value: [UInt8]) -> Bool {
        guard bytes.count - index >= value.count else { return false }
        for offset in value.indices where bytes[index + offset] != value[offset] { return false }
        return true
    }
}
