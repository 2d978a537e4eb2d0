/* Asking the ranks on this node to save their data before MPI_Abort ends them
 * (see abort_peers.c). */
#ifndef SCOREP_WRAPGEN_ABORT_PEERS_H
#define SCOREP_WRAPGEN_ABORT_PEERS_H

#include <mpi.h>

/* collective over comm (all ranks of the job), once after MPI_Init */
void scorep_abort_peers_init(MPI_Comm comm);
/* asks the other ranks on this node to save, saves this rank's data, and
 * waits (bounded) until they have */
void scorep_abort_peers_save(void);

#endif
