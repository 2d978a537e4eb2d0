/* One small MPI program measured by Score-P and by scorep-wrapgen
 * (tests/cube/test_same_tree_as_scorep.py): compiler-instrumented functions
 * around point-to-point calls and a barrier, the same call tree in both.
 * No collective that moves data: how many bytes a collective counts is each
 * tool's own rule (docs/MPI_ADAPTER.md), not the tree's business. */
#include <mpi.h>
#include <stdio.h>

static int exchange(int rank, int size, int value)
{
    int got = 0;
    MPI_Sendrecv(&value, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return got;
}

static void meet(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int value = rank;
    for (int i = 0; i < 5; i++) value = exchange(rank, size, value);
    meet();
    printf("rank %d value %d\n", rank, value);
    MPI_Finalize();
    return 0;
}
