#ifndef TAPEDECK_C_SIGNAL_PIPE_H
#define TAPEDECK_C_SIGNAL_PIPE_H

/// Installs a handler for SIGINT and SIGTERM that writes the signal's number, as one byte, to a
/// pipe, and returns the pipe's read end (-1 with errno set on failure). From the moment it
/// returns, a signal delivered to any thread of the process lands in the pipe: there is no
/// window in which it would be lost or kill the process. A process has one such pipe; later
/// calls return the same read end.
int tapedeck_signal_pipe_install(void);

#endif
