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
        var interactions: [Interaction]
        var fragments: [Data?]
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
        state = Locked(State(meta: meta, interactions: existing, fragments: Array(repeating: nil, count: existing.count)))
    }

    /// Appends an interaction and schedules a save within `flushDelay`.
    func append(_ interaction: Interaction) throws(CassetteError) {
        let fragment = codec.encodeFragment(interaction, sideFiles: sideFiles)
        let delay = state.withLock { state -> Duration? in
            state.interactions.append(interaction)
            state.fragments.append(fragment)
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

    /// The interactions written or waiting to be written, in order.
    var interactions: [Interaction] { state.withLock { $0.interactions } }

    /// How many times the file was replaced.
    var saveCount: Int { state.withLock { $0.saves } }

    /// Runs on `queue` only, so saves never overlap.
    private func saveNow() -> CassetteError? {
        let snapshot = state.withLock { state -> (CassetteMeta, [Interaction], [Data?])? in
            state.scheduled = false
            guard state.dirty else { return nil }
            state.dirty = false
            return (state.meta, state.interactions, state.fragments)
        }
        guard let (meta, interactions, cached) = snapshot else { return state.withLock { $0.lastError } }
        let started = ContinuousClock.now
        do throws(CassetteError) {
            var fragments: [Data] = []
            fragments.reserveCapacity(cached.count)
            for (position, fragment) in cached.enumerated() {
                if let fragment {
                    fragments.append(fragment)
                } else {
                    fragments.append(codec.encodeFragment(interactions[position], sideFiles: sideFiles))
                }
            }
            let pieces = try codec.assemble(meta: meta, fragments: fragments, file: file)
            try EncodedCassette(pieces: pieces, sideFiles: sideFiles.takePending()).write(to: file)
            state.withLock { state in
                for position in fragments.indices where state.fragments[position] == nil { state.fragments[position] = fragments[position] }
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
