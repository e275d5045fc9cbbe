#include "CSignalPipe.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

// The process's signal disposition is process-wide by nature: the handler can only find the
// pipe through these. They are set once, before the handler is installed, and never changed.
static int signal_pipe_read_end = -1;
static int signal_pipe_write_end = -1;

static void on_termination_signal(int number) {
    int saved = errno;  // a handler must leave errno as it found it
    unsigned char byte = (unsigned char)number;
    ssize_t written = write(signal_pipe_write_end, &byte, 1);
    (void)written;
    errno = saved;
}

int tapedeck_signal_pipe_install(void) {
    if (signal_pipe_read_end >= 0) return signal_pipe_read_end;
    int ends[2];
    if (pipe(ends) != 0) return -1;
    for (int i = 0; i < 2; i++) fcntl(ends[i], F_SETFD, FD_CLOEXEC);
    // A full pipe (a flood of signals nobody reads) must not block the handler.
    fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK);
    signal_pipe_write_end = ends[1];
    signal_pipe_read_end = ends[0];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_termination_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGINT, &action, NULL) != 0 || sigaction(SIGTERM, &action, NULL) != 0) return -1;
    return signal_pipe_read_end;
}
