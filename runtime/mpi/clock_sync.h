/* Clock offsets of every rank to rank 0's clock (clock_sync.c). */
#ifndef SCOREP_WRAPGEN_CLOCK_SYNC_H
#define SCOREP_WRAPGEN_CLOCK_SYNC_H

#include <mpi.h>

/* Collective over comm: every rank measures its offset to rank 0 and hands
 * it to the timer (scorep_timer_add_offset). Called once after MPI_Init and
 * once before MPI_Finalize. */
void scorep_clock_sync(MPI_Comm comm);

#endif
