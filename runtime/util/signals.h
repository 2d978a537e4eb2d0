#ifndef SCOREP_WRAPGEN_SIGNALS_H
#define SCOREP_WRAPGEN_SIGNALS_H

#include "internal.h"

/* ---- signals (signals.c): the life cycle's handlers for the signals that
 * end a process; write is what a signal does to the measurement ---- */
void scorep_signals_install(void (*write)(int sig));
void scorep_signals_restore(void);
void scorep_signals_step_aside(void);
void scorep_signals_step_back(int measurement_running);
/* a program's handler of a handled signal is running on this thread */
int scorep_signals_program_handler_running(void);

#endif
