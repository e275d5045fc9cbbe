@testable import TapedeckServer
import Testing

/// The allocator settings that give a large cassette's parse memory back (`AllocatorTuning`).
@Suite struct AllocatorTuningTests {
    /// They live in a C file behind `#if defined(__GLIBC__)`; the test once read false there (no C
    /// library header came first), and the settings silently did nothing.
    @Test func theSettingsAreAppliedOnGlibcAndSkippedElsewhere() {
        #if canImport(Glibc)
        #expect(AllocatorTuning.beforeLoading())
        #else
        #expect(!AllocatorTuning.beforeLoading())
        #endif
        AllocatorTuning.afterLoading()
    }
}
