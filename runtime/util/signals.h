/* What the process-end component (runtime/process_end/) and the core say to
 * each other. The component interposes the C library's _exit, _Exit and
 * signal functions and calls the core through these; the core calls the
 * component only through what it registers at its start, and does without
 * it when it is not in the process (docs/MAINTAINING.md, "Signals"). */
#ifndef SCOREP_WRAPGEN_SIGNALS_H
#define SCOREP_WRAPGEN_SIGNALS_H

#include <signal.h>

#include "internal.h"

/* ---- signals (signals.c): the life cycle's handlers for the signals that
 * end a process; write is what a signal does to the measurement ---- */
void scorep_signals_install(void (*write)(int sig));
void scorep_signals_restore(void);
void scorep_signals_step_aside(void);
void scorep_signals_step_back(int measurement_running);
/* a program's handler of a handled signal is running on this thread */
int scorep_signals_program_handler_running(void);

/* ---- the process-end component (runtime/process_end/) and the core ---- */

typedef struct scorep_process_end_component {
    /* the C library's _exit, found at the component's start: ends the
     * process without dlsym, lock or allocation */
    void (*end_process)(int status);
} scorep_process_end_component;

/* The component's start; the first registration counts (the MPI adapter
 * carries a copy of the component, and a program may link both). */
void scorep_process_end_register(const scorep_process_end_component* component);

/* The program's sigaction for sig while the measurement's handler is the
 * kernel's action: sets (act) and reads (old) the program's view of it and
 * returns 1; returns 0 and does nothing when sig is not the measurement's
 * now (the C library's sigaction is for it). */
int scorep_signals_program_action(int sig, const struct sigaction* act, struct sigaction* old);

/* _exit or _Exit is called: writes the data recorded so far if this is the
 * measured process and the measurement runs (a rank's through the MPI
 * layer). Returns at once in a child of fork() or vfork() and after the
 * end, without lock or allocation. */
void scorep_measurement_process_ends(void);

/* Ends the process as the C library's _exit does (the registered one, else
 * the system call). */
void scorep_signals_end_process(int status) __attribute__((noreturn));

#endif /* SCOREP_WRAPGEN_SIGNALS_H */
