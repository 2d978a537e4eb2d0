#ifndef SCOREP_WRAPGEN_MESSAGES_H
#define SCOREP_WRAPGEN_MESSAGES_H

#include <stdbool.h>
#include "internal.h"

/* ---- messages (messages.c) ---- */
/* kept until scorep_messages_log_in says where: <dir>/scorep.log, or
 * (NULL) stderr again */
void scorep_messages_to_log(void);
/* SCOREP_VERBOSE: whether scorep_verbose prints (the configuration sets it) */
void scorep_messages_set_verbose(bool on);
void scorep_messages_log_in(const char* dir);

#endif
