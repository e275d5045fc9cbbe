#ifndef TAPEDECK_C_SPAWN_ACTIONS_H
#define TAPEDECK_C_SPAWN_ACTIONS_H

#include <spawn.h>

/// Closes, in the child, every descriptor from `lowest` up (glibc 2.34's
/// `posix_spawn_file_actions_addclosefrom_np`). Returns 0, or ENOSYS where the C library has no
/// such action (on Darwin, `POSIX_SPAWN_CLOEXEC_DEFAULT` does the same).
int tapedeck_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// Makes the child start in `path` (`posix_spawn_file_actions_addchdir_np`: glibc 2.29, musl
/// 1.1.24, macOS 10.15). Returns 0, or an error number.
int tapedeck_spawn_chdir(posix_spawn_file_actions_t *actions, const char *path);

#endif
