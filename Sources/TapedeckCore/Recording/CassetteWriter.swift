import Foundation

/// Saves a growing cassette durably: each interaction is encoded once, saves are coalesced,
/// and every save replaces the file atomically.
///
/// No interaction is encoded twice, and saves are spaced by at least eight times as long as
/// the last one took (between `flushDelay` and ``longestDelay``), so the file is never more
/// than a second behind. With `keepsSpare`, a save writes only what was added since the save
/// before last (``GrowingFile``), so recording N interactions costs time linear in N however
/// long it runs; without, each save writes the whole file, which suits short recordings and
/// leaves nothing beside the cassette.
final class CassetteWriter: Sendable {
    private struct State {
        var meta: CassetteMeta
        /// The interactions the cassette held before, encoded at the first save.
        var existing: [Interaction]
        /// Emptied once both files hold them (see ``GrowingFile/oldestNeeded``).
        var existingFragments: FragmentLog?
        let existingCount: Int
        /// The interactions recorded in this run, encoded; only the bytes are kept, and with a
        /// spare file only those a later save can still need.
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
    /// The cassette's hand-written stubs, written back as they were read.
    private let stubs: [JSONValue]
    private let codec: CassetteCodec
    private let flushDelay: Duration
    private let onError: @Sendable (CassetteError) -> Void
    private let sideFiles: SideFiles
    private let growingFile: GrowingFile
    private let state: Locked<State>
    private let queue = DispatchQueue(label: "tapedeck.cassette-writer")

    /// Creates a writer that keeps `existing` interactions first, unchanged and in order.
    init(file: URL, codec: CassetteCodec, meta: CassetteMeta, existing: [Interaction], stubs: [JSONValue] = [],
         flushDelay: Duration, keepsSpare: Bool, onError: @escaping @Sendable (CassetteError) -> Void) {
        self.file = file
        self.stubs = stubs
        growingFile = GrowingFile(url: file, keepsSpare: keepsSpare)
        self.codec = codec
        self.flushDelay = flushDelay
        self.onError = onError
        sideFiles = SideFiles(cassetteFile: file, threshold: codec.sideFileThreshold)
        if let folder = sideFiles.bodiesFolder { SideFileSpool.removeLeftovers(in: folder) }
        state = Locked(State(meta: meta, existing: existing, existingFragments: existing.isEmpty ? FragmentLog() : nil,
                             existingCount: existing.count))
    }

    /// Appends an interaction and schedules a save within `flushDelay`.
    func append(_ interaction: Interaction) {
        // Encoded before taking the lock, so that appenders on other threads (the recording
        // proxy's event loops) wait only for a copy, never for each other's encoding.
        var fragment: [UInt8] = []
        fragment.reserveCapacity(Self.fragmentCapacity(interaction))
        codec.encodeFragment(interaction, sideFiles: sideFiles, into: &fragment)
        let delay = state.withLock { state -> Duration? in
            state.recorded.append { $0.append(contentsOf: fragment) }
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

    /// Room for an interaction's encoding, so that it is seldom grown: its bodies (text is
    /// mostly copied as it is) and what its headers and fields usually take.
    private static func fragmentCapacity(_ interaction: Interaction) -> Int {
        1024 + interaction.request.body.inMemoryCount + interaction.response.body.inMemoryCount
    }

    /// Saves now if anything is unsaved, and reports the last save error if the file is behind.
    func flush() throws(CassetteError) {
        if let error = queue.sync(execute: { saveNow() }) { throw error }
    }

    /// Saves what is unsaved and removes the spare file: for the end of a recording.
    func finish() throws(CassetteError) {
        if let error = queue.sync(execute: { defer { growingFile.removeSpare() }; return saveNow() }) { throw error }
    }

    /// How many interactions the cassette holds: the earlier ones and those recorded.
    var interactionCount: Int { state.withLock { $0.existingCount + $0.recorded.count } }

    /// The folder of the cassette's side files.
    var bodiesFolder: URL? { sideFiles.bodiesFolder }

    /// Bodies above this many bytes are written to side files.
    var sideFileThreshold: Int { sideFiles.threshold }

    /// How many times the file was replaced.
    var saveCount: Int { state.withLock { $0.saves } }

    /// Runs on `queue` only, so saves never overlap.
    private func saveNow() -> CassetteError? {
        let snapshot = state.withLock { state -> (CassetteMeta, [Interaction], FragmentLog?, Int, FragmentLog)? in
            state.scheduled = false
            guard state.dirty else { return nil }
            state.dirty = false
            state.recorded.seal()
            return (state.meta, state.existing, state.existingFragments, state.existingCount, state.recorded)
        }
        guard let (meta, existing, encodedExisting, existingCount, recorded) = snapshot else { return state.withLock { $0.lastError } }
        let started = ContinuousClock.now
        let existingFragments = encodedExisting ?? codec.encodeFragments(existing, sideFiles: sideFiles)
        do throws(CassetteError) {
            let count = existingCount + recorded.count
            let tail = try codec.tail(meta: meta, stubs: stubs, count: count, file: file)
            let pendingSideFiles = sideFiles.takePending()
            do {
                try SideFiles.write(pendingSideFiles, into: file.deletingLastPathComponent())
                try growingFile.save(count: count, head: CassetteCodec.head, items: { index in
                    let earlier = index < existingCount ? existingFragments.pieces(from: index) : []
                    return FragmentLog.items(earlier + recorded.pieces(from: max(index, existingCount) - existingCount), from: index)
                }, tail: tail)
            } catch {
                sideFiles.restore(pendingSideFiles)
                throw CassetteError(file: file.path, kind: .io("\(error)"))
            }
            let oldestNeeded = growingFile.oldestNeeded
            state.withLock { state in
                if state.existingFragments == nil {
                    state.existingFragments = existingFragments
                    state.existing = []
                }
                if oldestNeeded >= state.existingCount { state.existingFragments = FragmentLog() }
                state.recorded.release(below: oldestNeeded - state.existingCount)
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
