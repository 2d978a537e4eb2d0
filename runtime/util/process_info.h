#ifndef SCOREP_WRAPGEN_PROCESS_INFO_H
#define SCOREP_WRAPGEN_PROCESS_INFO_H

#include "internal.h"

/* ---- process info (process_info.c) ---- */
void scorep_process_info_record(void);
const char* scorep_process_command_line(void);
const char* scorep_process_start_time(void);

#endif
