/*
 * Collectives of every shape the clock condition's repair knows
 * (trace/trace_clock_condition.c), roots at both ends of the world, on
 * MPI_COMM_WORLD and a split communicator, and ones that imply no order
 * (a scan, a non-blocking barrier): tests/clock/test_clock_sync.py.
 */
#include <mpi.h>
int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int r, s;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
    int x = r, y, all[64], one[64] = {0};
    for (int i = 0; i < 10; i++) {
        MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(&x, 1, MPI_INT, s - 1, MPI_COMM_WORLD);
        MPI_Reduce(&r, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&r, &y, 1, MPI_INT, MPI_SUM, s - 1, MPI_COMM_WORLD);
        MPI_Gather(&r, 1, MPI_INT, all, 1, MPI_INT, 1 % s, MPI_COMM_WORLD);
        MPI_Scatter(all, 1, MPI_INT, &y, 1, MPI_INT, 2 % s, MPI_COMM_WORLD);
        MPI_Allreduce(&r, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Alltoall(one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Allreduce(&r, &y, 1, MPI_INT, MPI_SUM, half);
        MPI_Scan(&r, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Request q;
        MPI_Ibarrier(MPI_COMM_WORLD, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
