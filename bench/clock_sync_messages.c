/* bench/clock_sync: a ring of point-to-point messages (argv[1] rounds of
 * MPI_Sendrecv to the right), for the cost of the trace's post-mortem
 * clock-condition check (runtime/trace/trace_clock_condition.c). */
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, in, rounds = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < rounds; i++)
        MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT, (rank + size - 1) % size, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
