/* Stands for a Fortran layer that starts and ends MPI through the profiling
 * interface (Open MPI's mpif.h / use mpi layer calls PMPI_Init and
 * PMPI_Finalize): no wrapper sees these calls. */
#include <mpi.h>

void helper_start_mpi(int* argc, char*** argv) { PMPI_Init(argc, argv); }

void helper_end_mpi(void) { PMPI_Finalize(); }
