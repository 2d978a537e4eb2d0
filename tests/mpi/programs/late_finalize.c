/* The program region, region definitions and MPI_Finalize's region
 * (tests/mpi/test_program_region_and_finalize.py): a ring of MPI_Sendrecv in
 * a function of its own; the last rank reaches MPI_Finalize late by
 * argv[1] milliseconds, so every other rank waits that long inside it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int pass_on(int rank, int size, int value)
{
    int got = -1;
    MPI_Sendrecv(&value, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT, (rank + size - 1) % size, 7,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return got;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long late_ms = argc > 1 ? atol(argv[1]) : 0;
    int value = rank;
    for (int i = 0; i < size; i++) value = pass_on(rank, size, value);
    if (rank == size - 1) {
        struct timespec pause = {late_ms / 1000, (late_ms % 1000) * 1000000L};
        nanosleep(&pause, NULL);
    }
    printf("rank %d value %d\n", rank, value);
    MPI_Finalize();
    return 0;
}
