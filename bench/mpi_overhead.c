/* Two ranks: ns per MPI_Comm_rank call and per 8-byte ping-pong half round trip.
 * Built twice by bench/mpi_overhead: plain and with the instrumenter. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double best_of(int runs, int iterations, int rank, int pingpong)
{
    double best = 1e30;
    char buf[8] = {0};
    for (int r = 0; r < runs; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (int i = 0; i < iterations; i++) {
            if (!pingpong) {
                int me;
                MPI_Comm_rank(MPI_COMM_WORLD, &me);
            } else if (rank == 0) {
                MPI_Send(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        double elapsed = (MPI_Wtime() - start) * 1e9 / iterations / (pingpong ? 2 : 1);
        if (elapsed < best)
            best = elapsed;
    }
    return best;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int calls = argc > 1 ? atoi(argv[1]) : 2000000, pings = argc > 2 ? atoi(argv[2]) : 20000;
    double comm_rank = best_of(5, calls, rank, 0);
    double pingpong = best_of(5, pings, rank, 1);
    if (rank == 0)
        printf("comm_rank_ns %.2f\npingpong_ns %.2f\n", comm_rank, pingpong);
    MPI_Finalize();
    return 0;
}
