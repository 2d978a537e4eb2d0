/* Ranks 2k and 2k+1 exchange 8-byte messages in a loop (usage: pingpong_pairs
 * [round trips]; an even number of ranks): every rank records as many events,
 * enough to run past a node's SCOREP_TRACING_MAX_SIZE
 * (tests/mpi/test_trace_max_size.py). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, n = argc > 1 ? atoi(argv[1]) : 20000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int partner = rank ^ 1;
    char buf[8] = {0};
    for (int i = 0; i < n; i++) {
        if (rank % 2 == 0) {
            MPI_Send(buf, 8, MPI_BYTE, partner, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, 8, MPI_BYTE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, 8, MPI_BYTE, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            buf[0]++;
            MPI_Send(buf, 8, MPI_BYTE, partner, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("RESULT %d\n", (int)(unsigned char)buf[0]);
    MPI_Finalize();
    return 0;
}
