/* What a ping-pong clock offset measurement reports between processes that
 * read ONE clock (the TSC of one host), where the true offset is 0: its
 * error. The method is the one Score-P 8.4 describes for its MPI clock
 * synchronisation at the start and the end of a run: the master reads its
 * clock, pings, the worker reads its clock and pongs, the master reads
 * again; of 10 rounds the one with the shortest round trip counts, and the
 * worker's offset is master_send + round_trip / 2 - worker_time.
 * docs/CLOCKS.md section 3 gives what it measured here and why it matters
 * for scorep-check on Score-P's traces.
 *   mpicc -O2 bench/pingpong_offsets.c -o pingpong_offsets
 *   mpirun -n 4 ./pingpong_offsets */
#include <mpi.h>
#include <stdio.h>
#include <stdint.h>
#include <x86intrin.h>
#define N 10
static int64_t measure(int rank, int worker)
{
    uint64_t send[N], recv[N], wt[N];
    int dummy = 0;
    if (rank == 0) {
        for (int i = 0; i < N; i++) {
            send[i] = __rdtsc();
            MPI_Send(&dummy, 1, MPI_INT, worker, 0, MPI_COMM_WORLD);
            MPI_Recv(&dummy, 1, MPI_INT, worker, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            recv[i] = __rdtsc();
        }
        int best = 0;
        for (int i = 1; i < N; i++) if (recv[i] - send[i] < recv[best] - send[best]) best = i;
        uint64_t sync = send[best] + (recv[best] - send[best]) / 2;
        MPI_Send(&sync, 1, MPI_UINT64_T, worker, 1, MPI_COMM_WORLD);
        MPI_Send(&best, 1, MPI_INT, worker, 1, MPI_COMM_WORLD);
        return 0;
    } else if (rank == worker) {
        for (int i = 0; i < N; i++) {
            MPI_Recv(&dummy, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            wt[i] = __rdtsc();
            MPI_Send(&dummy, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        }
        uint64_t sync; int best;
        MPI_Recv(&sync, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&best, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return (int64_t)(sync - wt[best]);
    }
    return 0;
}
int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 2; round++) {   /* at "init" and at "finalize" */
        int64_t mine = 0;
        for (int w = 1; w < size; w++) { int64_t o = measure(rank, w); if (rank == w) mine = o; }
        int64_t all[64];
        MPI_Gather(&mine, 1, MPI_INT64_T, all, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("%s offsets (TSC ticks, true value 0):", round ? "end  " : "start");
            for (int r = 0; r < size; r++) printf(" %lld", (long long)all[r]);
            printf("\n");
        }
        if (!round) { volatile double x = 0; for (long i = 0; i < 50000000; i++) x += i; }
    }
    MPI_Finalize();
    return 0;
}
