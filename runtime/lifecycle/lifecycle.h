#ifndef SCOREP_WRAPGEN_LIFECYCLE_H
#define SCOREP_WRAPGEN_LIFECYCLE_H

#include "internal.h"

/* ---- life cycle (lifecycle.c): called from above the core only ---- */
/* The MPI layer after PMPI_Init: switch to the MPI ops (starts the
 * measurement if needed); creates the experiment directory collectively.
 * ops must stay valid until finalisation. */
void scorep_multiprocess_register(const scorep_multiprocess_ops* ops);
/* The same, but the ops cannot communicate yet (MPI was initialised behind
 * the adapter's back and the ranks cannot agree now without risking a
 * deadlock): rank and size are known, the experiment directory is created at
 * finalisation, when the ops work. */
void scorep_multiprocess_register_deferred(const scorep_multiprocess_ops* ops);
/* The MPI layer just before PMPI_Init: the measurement's crash handlers step
 * aside so that MPI installs its own; registration puts ours back on top,
 * chaining to MPI's. */
void scorep_measurement_mpi_init_begins(void);
/* scorep_measurement_abort for a helper thread that records no events, while
 * the program's threads may still be recording: stops recording, lets events
 * under way finish, then writes. */
void scorep_measurement_abort_beside_running_threads(void);

#endif
