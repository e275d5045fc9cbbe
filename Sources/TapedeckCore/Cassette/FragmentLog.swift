/// Interactions encoded as they stand inside a cassette's `interactions` array, in order, each
/// after its separator, kept as runs of contiguous bytes: a save writes the runs as they are,
/// and encoding appends to the last run, so no interaction has a buffer of its own.
///
/// A value type: a save seals the log (``seal()``) and takes a copy while recording goes on; the
/// next append starts a run of its own, so no run a save holds is copied. Runs no save needs any
/// more are released from the front.
struct FragmentLog: Sendable {
    /// Bytes handed to the file, in order.
    typealias Piece = ArraySlice<UInt8>

    private struct Run {
        /// The index of the run's first fragment.
        let first: Int
        var bytes: [UInt8] = []
        /// Where each fragment's separator starts in `bytes`.
        var starts: [Int] = []
    }

    /// A run takes fragments until it holds this many bytes.
    private static let runSize = 1 << 20
    /// What comes before every fragment; the first of the file drops the comma (``items(_:from:)``).
    private static let separator = Array(",\n    ".utf8)

    private var runs: [Run] = []

    /// How many fragments were appended.
    private(set) var count = 0
    /// Whether the next fragment starts a new run: the last one is shared with a save.
    private var isSealed = false

    /// Encodes `interactions` one after another with `encode`.
    init(_ interactions: [Interaction], encode: (Interaction, inout [UInt8]) -> Void) {
        for interaction in interactions { append { encode(interaction, &$0) } }
    }

    /// An empty log.
    init() {}

    /// Appends one fragment, which `encode` appends to the bytes it is given.
    mutating func append(_ encode: (inout [UInt8]) -> Void) {
        if runs.isEmpty || isSealed || runs[runs.count - 1].bytes.count >= Self.runSize {
            isSealed = false
            var run = Run(first: count)
            run.bytes.reserveCapacity(Self.runSize + Self.runSize / 4)
            runs.append(run)
        }
        let last = runs.count - 1
        runs[last].starts.append(runs[last].bytes.count)
        runs[last].bytes.append(contentsOf: Self.separator)
        encode(&runs[last].bytes)
        count += 1
    }

    /// Ends the last run before a save copies the log: appending to a run the copy shares would
    /// copy all of it (up to ``runSize`` bytes), once after every save.
    mutating func seal() {
        isSealed = true
    }

    /// Forgets the runs whose fragments all come before fragment `index`; the last run is kept.
    mutating func release(below index: Int) {
        let whole = runs.dropFirst().prefix { $0.first <= index }.count
        runs.removeFirst(whole)
    }

    /// The fragments from the one at `index` on, each after its separator; `index` is not released.
    func pieces(from index: Int) -> [Piece] {
        guard index < count else { return [] }
        guard let position = runs.lastIndex(where: { $0.first <= index }) else { preconditionFailure("fragment \(index) was released") }
        let run = runs[position]
        return [run.bytes[run.starts[index - run.first]...]] + runs[(position + 1)...].map { $0.bytes[...] }
    }

    /// The pieces of a file's items from the one at `index` on, given their fragments: the first
    /// item of the file has no comma before it.
    static func items(_ pieces: [Piece], from index: Int) -> [Piece] {
        guard index == 0, let first = pieces.first else { return pieces }
        return [first.dropFirst()] + pieces.dropFirst()
    }
}
