#ifndef SCOREP_WRAPGEN_EXPERIMENT_H
#define SCOREP_WRAPGEN_EXPERIMENT_H

#include "internal.h"

/* ---- experiment directory (experiment.c) ---- */
/* at the start: the working directory every experiment name is taken against */
void scorep_experiment_note_working_directory(void);
/* At the start: is this process a child of a measured process whose run it
 * joins (its experiment goes into the parent's, its messages to a log)? */
int scorep_experiment_find_parent(void);

/* collective when an MPI layer is registered; returns the path or NULL */
const char* scorep_experiment_create(void);
/* without communication (abnormal end before the ranks agreed on one) */
const char* scorep_experiment_create_local(void);
/* This process was started by MPI_Comm_spawn: where the configured directory
 * exists (the parent's), the experiment goes inside it, never replacing it. */
void scorep_experiment_spawned(void);

#endif
