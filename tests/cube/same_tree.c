/* One small MPI program measured by Score-P and by scorep-wrapgen
 * (tests/cube/test_same_tree_as_scorep.py): compiler-instrumented functions
 * around point-to-point and collective calls, the same call tree in both. */
#include <mpi.h>
#include <stdio.h>

static int exchange(int rank, int size, int value)
{
    int got = 0;
    MPI_Sendrecv(&value, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return got;
}

static int reduce(int value)
{
    int sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int value = rank;
    for (int i = 0; i < 5; i++) value = exchange(rank, size, value);
    int sum = reduce(value);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
