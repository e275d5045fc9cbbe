#include "CAllocatorTuning.h"

// Any C library header defines __GLIBC__ on glibc; without one first, the test below is always false.
#include <stdlib.h>

// Swift's Glibc module exports neither call, so they live here, behind the C library's own test.
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int tapedeck_allocator_map_large_blocks(int threshold) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, threshold);
#else
    (void)threshold;
    return 0;
#endif
}

void tapedeck_allocator_trim(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}
