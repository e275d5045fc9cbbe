#ifndef TAPEDECK_C_ALLOCATOR_TUNING_H
#define TAPEDECK_C_ALLOCATOR_TUNING_H

/// Serves allocations of `threshold` bytes and more with their own mappings, returned to the
/// system when freed (glibc `mallopt(M_MMAP_THRESHOLD, threshold)`). Returns 1 when the setting
/// was applied, 0 on other C libraries (musl, Darwin), whose allocators need no such setting.
int tapedeck_allocator_map_large_blocks(int threshold);

/// Returns the free memory at the top of the heap to the system (glibc `malloc_trim(0)`).
/// Does nothing on other C libraries.
void tapedeck_allocator_trim(void);

#endif
