#include "CAllocatorTuning.h"

// Swift's Glibc module exports neither call, so they live here, behind the C library's own test.
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void tapedeck_allocator_map_large_blocks(int threshold) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, threshold);
#else
    (void)threshold;
#endif
}

void tapedeck_allocator_trim(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}
