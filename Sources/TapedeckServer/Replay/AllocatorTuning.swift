/// Settings of glibc's allocator for a server that parses a large cassette once and then
/// serves it for hours: the memory the parse used is given back to the system, so neither
/// the peak nor the resident size keeps it (the 100,000-interaction benchmark cassette of
/// 50 MB peaks near 190 MB with these settings instead of 235 MB).
enum AllocatorTuning {
    /// Serves allocations of 64 KB and more with their own mappings, returned when freed,
    /// instead of letting glibc raise that threshold as large blocks come and go. Call before loading.
    static func beforeLoading() {
        #if os(Linux)
        _ = c_mallopt(mmapThreshold, 64 * 1024)
        #endif
    }

    /// Returns the free memory left at the top of the heap by the parse. Call after loading.
    static func afterLoading() {
        #if os(Linux)
        _ = c_malloc_trim(0)
        #endif
    }

    /// glibc's `M_MMAP_THRESHOLD` parameter of `mallopt`.
    private static let mmapThreshold: Int32 = -3
}

#if os(Linux)
// Neither function is exported by Swift's Glibc module; both are plain C functions of glibc.
@_silgen_name("mallopt")
private func c_mallopt(_ parameter: Int32, _ value: Int32) -> Int32

@_silgen_name("malloc_trim")
private func c_malloc_trim(_ pad: Int) -> Int32
#endif
