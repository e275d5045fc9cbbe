import CAllocatorTuning

/// Settings of glibc's allocator for a server that parses a large cassette once and then
/// serves it for hours: the memory the parse used is given back to the system, so neither
/// the peak nor the resident size keeps it (the 100,000-interaction benchmark cassette of
/// 50 MB peaks near 190 MB with these settings instead of 235 MB). Other C libraries ignore them.
enum AllocatorTuning {
    /// Serves allocations of 64 KB and more with their own mappings, returned when freed,
    /// instead of letting glibc raise that threshold as large blocks come and go. Call before loading.
    static func beforeLoading() {
        tapedeck_allocator_map_large_blocks(64 * 1024)
    }

    /// Returns the free memory left at the top of the heap by the parse. Call after loading.
    static func afterLoading() {
        tapedeck_allocator_trim()
    }
}
