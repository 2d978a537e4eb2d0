/* The C loops of bench/mpi_overhead (mpi_overhead_loops.c). */
#ifndef MPI_OVERHEAD_LOOPS_H
#define MPI_OVERHEAD_LOOPS_H

enum { MPI_SIDE, PMPI_SIDE };
enum kind { COMM_RANK, PINGPONG, SELF };

void mpi_overhead_c_loop(int kind, int side, int n, int rank);

#endif
