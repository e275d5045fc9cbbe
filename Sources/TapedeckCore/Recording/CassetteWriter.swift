import Foundation

/// Saves a growing cassette durably: each interaction is encoded once, saves are coalesced,
/// and every save replaces the file atomically.
///
/// The cost of recording N interactions is linear in N: no interaction is encoded twice,
/// and saves are spaced by at least eight times as long as the last one took (between
/// `flushDelay` and ``longestDelay``), so saving never takes more than a ninth of the time
/// however large the cassette grows, and the file is never more than a second behind.
final class CassetteWriter: Sendable {
    private struct State {
        var meta: CassetteMeta
        /// The interactions the cassette held before, encoded at the first save.
        var existing: [Interaction]
        var existingFragments: [Data]?
        /// Every interaction recorded in this run, encoded; only the bytes are kept.
        var recorded = FragmentLog()
        var dirty = false
        var scheduled = false
        var lastError: CassetteError?
        var saves = 0
        var lastSaveDuration: Duration = .zero
    }

    /// The longest a recorded interaction waits before its save starts.
    static let longestDelay: Duration = .milliseconds(800)

    let file: URL
    private let codec: CassetteCodec
    private let flushDelay: Duration
    private let onError: @Sendable (CassetteError) -> Void
    private let sideFiles: SideFiles
    private let state: Locked<State>
    private let queue = DispatchQueue(label: "tapedeck.cassette-writer")

    /// Creates a writer that keeps `existing` interactions first, unchanged and in order.
    init(file: URL, codec: CassetteCodec, meta: CassetteMeta, existing: [Interaction], flushDelay: Duration,
         onError: @escaping @Sendable (CassetteError) -> Void) {
        self.file = file
        self.codec = codec
        self.flushDelay = flushDelay
        self.onError = onError
        sideFiles = SideFiles(cassetteFile: file, threshold: codec.sideFileThreshold)
        state = Locked(State(meta: meta, existing: existing, existingFragments: existing.isEmpty ? [] : nil))
    }

    /// Appends an interaction and schedules a save within `flushDelay`.
    func append(_ interaction: Interaction) {
        let fragment = codec.encodeFragment(interaction, sideFiles: sideFiles)
        let delay = state.withLock { state -> Duration? in
            state.recorded.append(fragment)
            state.dirty = true
            defer { state.scheduled = true }
            guard !state.scheduled else { return nil }
            return min(max(flushDelay, state.lastSaveDuration * 8), max(flushDelay, Self.longestDelay))
        }
        if let delay {
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in _ = saveNow() }
        }
    }

    /// Saves now if anything is unsaved, and reports the last save error if the file is behind.
    func flush() throws(CassetteError) {
        if let error = queue.sync(execute: { saveNow() }) { throw error }
    }

    /// How many interactions the cassette holds: the earlier ones and those recorded.
    var interactionCount: Int { state.withLock { $0.existing.count + $0.recorded.count } }

    /// How many times the file was replaced.
    var saveCount: Int { state.withLock { $0.saves } }

    /// Runs on `queue` only, so saves never overlap.
    private func saveNow() -> CassetteError? {
        let snapshot = state.withLock { state -> (CassetteMeta, [Interaction], [Data]?, FragmentLog)? in
            state.scheduled = false
            guard state.dirty else { return nil }
            state.dirty = false
            return (state.meta, state.existing, state.existingFragments, state.recorded)
        }
        guard let (meta, existing, encodedExisting, recorded) = snapshot else { return state.withLock { $0.lastError } }
        let started = ContinuousClock.now
        let existingFragments = encodedExisting ?? existing.map { codec.encodeFragment($0, sideFiles: sideFiles) }
        do throws(CassetteError) {
            let pieces = try codec.assemble(meta: meta, fragments: existingFragments + recorded.fragments, file: file)
            try EncodedCassette(pieces: pieces, sideFiles: sideFiles.takePending()).write(to: file)
            state.withLock { state in
                if state.existingFragments == nil {
                    state.existingFragments = existingFragments
                    state.existing = []
                }
                state.lastError = nil
                state.saves += 1
                state.lastSaveDuration = started.duration(to: .now)
            }
            return nil
        } catch {
            state.withLock { state in
                state.dirty = true
                state.lastError = error
            }
            onError(error)
            return error
        }
    }
}

/// Encoded interactions in order, kept in fixed-size chunks: a save takes a copy of the log
/// while recording goes on, and appending after that copies one chunk, never the whole log.
private struct FragmentLog {
    private static let chunkSize = 4096
    private var chunks: [[Data]] = []

    /// How many fragments there are.
    private(set) var count = 0

    mutating func append(_ fragment: Data) {
        if chunks.isEmpty || chunks[chunks.count - 1].count == Self.chunkSize {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
        }
        chunks[chunks.count - 1].append(fragment)
        count += 1
    }

    /// Every fragment, in order.
    var fragments: [Data] { chunks.flatMap { $0 } }
}
