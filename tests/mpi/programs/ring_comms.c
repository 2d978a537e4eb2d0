/* A ring on MPI_COMM_WORLD and communicator creation and freeing whose counts
 * the program prints: each rank sends its token to the right neighbour ROUNDS
 * times; MPI_Comm_split (halves), MPI_Comm_dup (of world), MPI_Comm_split with
 * MPI_UNDEFINED on odd ranks (those get MPI_COMM_NULL), a reduction on each
 * half, and the communicators it created freed. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 3

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int token = rank;
    for (int r = 0; r < ROUNDS; r++) {
        int in;
        MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT, (rank + size - 1) % size, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token = in;
    }
    MPI_Comm half, dup, evens;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &evens);
    int sum = 0;
    MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, half);
    int created = 2 + (evens != MPI_COMM_NULL), freed = 0;
    MPI_Comm_free(&half);
    freed++;
    MPI_Comm_free(&dup);
    freed++;
    if (evens != MPI_COMM_NULL) {
        MPI_Comm_free(&evens);
        freed++;
    }
    printf("RANK %d creating_calls 3 created %d freed %d sum %d\n", rank, created, freed, sum);
    MPI_Finalize();
    return 0;
}
