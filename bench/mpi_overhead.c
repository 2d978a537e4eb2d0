/* Two ranks: ns per MPI_Comm_rank call, per 8-byte ping-pong half round trip
 * and per 8-byte send to self with its receive (rank 0 alone: one MPI_Send +
 * MPI_Recv pair, both wrappers fully on the path, nothing overlaps a wait).
 * Each is measured twice in the same process: through the MPI_ name (the
 * wrapper, when bench/mpi_overhead links the adapter) and through the PMPI_
 * name (what the wrapper itself calls: the unwrapped path). Blocks of the two
 * sides alternate (ABBA order), so both see the same placement, caches and VM
 * state; round 0 is a warm-up.
 *
 * usage: mpi_overhead [rounds [calls_per_block [round_trips_per_block]]]
 * (a self block has as many pairs as a ping-pong block has round trips)
 * Rank 0 prints, per figure (comm_rank, pingpong, self) and side (mpi, pmpi),
 * the best block, the mean of the best quarter of the blocks, the median
 * block, and the median of the paired differences
 * (wrapped block - unwrapped block of the same round), in ns per call, per
 * half round trip or per pair:
 *   <figure>_<side>_best, <figure>_<side>_best_quarter, <figure>_<side>_median,
 *   <figure>_added_paired */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpi_overhead_loops.h"

/* A barrier that sleeps instead of spinning: while rank 0 measures alone, rank 1
 * must not compete for the core (the two vCPUs may be siblings on the host). */
static void sleeping_barrier(void)
{
    MPI_Request request;
    int done = 0;
    PMPI_Ibarrier(MPI_COMM_WORLD, &request);
    for (;;) {
        PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
}

static int by_value(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* values, int n)
{
    qsort(values, (size_t)n, sizeof *values, by_value);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* Round 0 is a warm-up (the first wrapped call defines the region) and is not
 * counted. */
static void measure(const char* name, int rounds, int n, int per, int rank, enum kind kind)
{
    double* t[2] = {malloc(sizeof(double) * (size_t)rounds), malloc(sizeof(double) * (size_t)rounds)};
    double* diff = malloc(sizeof(double) * (size_t)rounds);
    PMPI_Barrier(MPI_COMM_WORLD);
    /* comm_rank and self are timed on rank 0 alone; rank 1 sleeps meanwhile */
    for (int r = 0; r <= rounds && (kind == PINGPONG || rank == 0); r++) {
        for (int k = 0; k < 2; k++) {
            int side = ((r + (r >> 1)) & 1) ^ k;   /* ABBA: mpi pmpi | pmpi mpi | ... */
            double start = MPI_Wtime();
            mpi_overhead_c_loop(kind, side, n, rank);
            double ns = (MPI_Wtime() - start) * 1e9 / n / per;
            if (r > 0)
                t[side][r - 1] = ns;
        }
        if (r > 0)
            diff[r - 1] = t[MPI_SIDE][r - 1] - t[PMPI_SIDE][r - 1];
    }
    sleeping_barrier();
    if (rank == 0) {
        const char* side_name[2] = {"mpi", "pmpi"};
        for (int s = 0; s < 2; s++) {
            double m = median(t[s], rounds);   /* sorted: t[s][0] is the best */
            int quarter = rounds / 4 > 0 ? rounds / 4 : 1;
            double sum = 0;
            for (int i = 0; i < quarter; i++)
                sum += t[s][i];
            printf("%s_%s_best %.2f\n%s_%s_best_quarter %.2f\n%s_%s_median %.2f\n", name, side_name[s], t[s][0],
                   name, side_name[s], sum / quarter, name, side_name[s], m);
        }
        printf("%s_added_paired %.2f\n", name, median(diff, rounds));
    }
    free(t[0]);
    free(t[1]);
    free(diff);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int rounds = argc > 1 ? atoi(argv[1]) : 40;
    const int calls = argc > 2 ? atoi(argv[2]) : 50000;
    const int trips = argc > 3 ? atoi(argv[3]) : 2500;
    measure("comm_rank", rounds, calls, 1, rank, COMM_RANK);
    /* per half round trip: one send on one rank, one receive on the other */
    measure("pingpong", rounds, trips, 2, rank, PINGPONG);
    /* per pair of MPI_Send and MPI_Recv of rank 0 to itself */
    measure("self", rounds, trips, 1, rank, SELF);
    MPI_Finalize();
    return 0;
}
