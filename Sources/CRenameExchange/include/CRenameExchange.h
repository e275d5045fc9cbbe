#ifndef TAPEDECK_C_RENAME_EXCHANGE_H
#define TAPEDECK_C_RENAME_EXCHANGE_H

/// Swaps the files at `first` and `second` in one atomic step (Linux `renameat2` with
/// `RENAME_EXCHANGE`, Darwin `renamex_np` with `RENAME_SWAP`). Both must exist on the same
/// file system. Returns 0, or -1 with errno set (ENOSYS where the system has no such call,
/// EINVAL where the file system does not support it).
int tapedeck_rename_exchange(const char *first, const char *second);

#endif
