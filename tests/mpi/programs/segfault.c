/* Rank 1 writes through a null pointer after three barriers; the other ranks
 * wait in a fourth barrier until the launcher ends them. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 3; i++) MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        printf("rank 1 crashes now\n");
        fflush(stdout);
        volatile int* nowhere = NULL;
        *nowhere = 42;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
