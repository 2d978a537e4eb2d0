/* _exit and _Exit: the process ends without exit handlers (Open MPI's fatal
 * error handler, a program's signal handler, /bin/sh at every end). The
 * core writes the data recorded so far, then the C library's function ends
 * the process. Called in children of vfork() and in signal handlers: this
 * path looks nothing up, takes no lock and allocates nothing itself. */
#include <sys/syscall.h>
#include <unistd.h>

#include "c_library.h"
#include "signals.h"

static __attribute__((noreturn)) void end(void (*c_library)(int), int status)
{
    scorep_measurement_process_ends();
    if (c_library) c_library(status);
    for (;;) syscall(SYS_exit_group, status);
}

void _exit(int status) { end(scorep_c_library_exit, status); }

void _Exit(int status) { end(scorep_c_library_Exit, status); }
