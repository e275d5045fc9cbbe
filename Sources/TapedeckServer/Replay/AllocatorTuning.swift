import CAllocatorTuning

/// Settings of glibc's allocator for a server that parses a large cassette once and then
/// serves it for hours: the memory the parse used is given back to the system, so neither
/// the resident size keeps it (the 100,000-interaction benchmark cassette of 50 MB settles at
/// 160 MB with these settings instead of 220 MB, after a peak near 195 MB while it parses).
/// Other C libraries ignore them.
enum AllocatorTuning {
    /// Serves allocations of 128 KiB and more with their own mappings, returned when freed,
    /// instead of letting glibc raise that threshold as large blocks come and go (its default
    /// starts at 128 KiB; the 64 KiB pieces of a side-file body stay below it). Call before loading.
    ///
    /// - Returns: whether the setting was applied (on glibc only).
    @discardableResult
    static func beforeLoading() -> Bool {
        tapedeck_allocator_map_large_blocks(128 * 1024) == 1
    }

    /// Returns the free memory the parse left, at the top of the heap and in whole free pages
    /// inside it, to the system. Call after loading.
    static func afterLoading() {
        tapedeck_allocator_trim()
    }
}
