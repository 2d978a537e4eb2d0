#include <mpi.h>

#include "ringstep.h"

/* Rank 0 adds 1 and starts the token; every other rank receives it from
   its left neighbour, adds rank + 1 and passes it on; rank 0 gets it back.
   One MPI_Send and one MPI_Recv of one long per rank and round. */
long ring_step(long token, int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    if (rank == 0) {
        token += 1;
        MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += rank + 1;
        MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
    }
    return token;
}
