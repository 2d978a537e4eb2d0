#ifndef SCOREP_WRAPGEN_MPI_REQUESTS_H
#define SCOREP_WRAPGEN_MPI_REQUESTS_H

#include "internal.h"

/* ---- the MPI adapter's request table (mpi_requests.c) ---- */
/* Whether MPI calls, and so the request table's uses, can run at the same time
 * (MPI_THREAD_MULTIPLE); the table is locked only then. Set once, before the
 * first request; the default is 1. */
void scorep_requests_concurrent(int concurrent);

#endif
