/* The C half of the mixed-language test: a C library that calls MPI itself. */
#include <mpi.h>

/* Passes a token around the ring `rounds` times with MPI_Sendrecv (a C-only call
 * in this program); returns the token. Called from Fortran (bind(c)). */
int c_ring(int rounds)
{
    int rank, size, token = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < rounds; i++) {
        int next = token + rank;
        MPI_Sendrecv(&next, 1, MPI_INT, (rank + 1) % size, 5, &token, 1, MPI_INT,
                     (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return token;
}
