/* Clock synchronisation: the offset of every rank's clock to rank 0's (the
 * master clock), measured after MPI_Init and again before MPI_Finalize.
 *
 * Rank 0 exchanges a few ping-pongs with each other rank in turn: it reads
 * its clock (t0), sends a one-integer message, the peer answers with its own
 * clock reading (tp), rank 0 reads its clock again (t1). The exchange with
 * the shortest round trip bounds the error best: the peer read its clock
 * somewhere in [t0, t1], so its offset is (t0 + t1) / 2 - tp, off by at
 * most half the round trip (kept as the offset's uncertainty). Rank 0
 * then scatters every rank its offset and the local time it belongs to.
 * Ranks reading the same clock as an earlier rank (scorep_timer_clock_identity:
 * one node, one boot) are not measured: they take that rank's offset, so the
 * ranks of one node stay exactly as consistent as their shared clock, and
 * the cost grows with the number of clocks (nodes), not ranks.
 *
 * The two offsets of a rank go to the timer (timer.c): the trace writes them
 * as OTF2 ClockOffset records, from which OTF2 readers interpolate every
 * event's time onto the master clock (offset and drift), and the core
 * converts the times it writes itself the same way. docs/CLOCKS.md. */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock_sync.h"
#include "internal.h"
#include "timer.h"

/* Ping-pongs per rank: at least ROUNDS_MIN, then until one round trip is
 * within twice the shortest any rank had (the first rank: 2 x ROUNDS_MIN),
 * at most ROUNDS_MAX. On a loaded node a round trip waits for the peer to be
 * scheduled: more rounds find an undisturbed one. Where ROUNDS_MAX found
 * none, more rounds follow for up to PATIENCE_SECONDS per rank (MPICH's
 * ranks poll while they wait: with another busy process on their cores,
 * 40 round trips of 170 us were seen, and 0.7 ms; an undisturbed one takes
 * 1 to 2 us). */
#define ROUNDS_MIN 5
#define ROUNDS_MAX 40
#define ROUNDS_PATIENT 2000
#define PATIENCE_SECONDS 0.005
/* a tag of the layer's private communicator the layer uses for nothing else */
#define SYNC_TAG 0x5C10

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Ranks waiting for their turn sleep instead of polling: with more ranks
 * than cores, polling ranks would take the cores from the two that
 * exchange messages and lengthen every round trip. */
/* The two ranks of a ping-pong wait polling, as MPI does, but after a few
 * polls give the core away between polls: with more busy processes than cores
 * (a loaded node, MPICH's ranks that poll), the other rank of the pair gets
 * it at once rather than after the scheduler's time slice (round trips of
 * 190 µs to 10 ms were seen, against 1 to 2 µs undisturbed). */
#define POLLS_BEFORE_YIELDING 20

static void wait_yielding(MPI_Request* request)
{
    for (int polls = 0;; polls++) {
        int done = 0;
        PMPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (done) return;
        if (polls >= POLLS_BEFORE_YIELDING) sched_yield();
    }
}

static void wait_sleeping(MPI_Request* request)
{
    struct timespec pause = {0, 20000};
    for (;;) {
        int done = 0;
        PMPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (done) return;
        nanosleep(&pause, NULL);
    }
}

/* The messages rank 0 sends a measured rank: a ping to answer, the end of
 * a set of pings (rank 0 may come back for another), the end of the
 * synchronisation. */
enum { SET_ENDS = 0, PING = 1, SYNC_ENDS = 2 };

/* result: the peer's time, its offset, the round trip, improved where a
 * round trip is shorter than result[2] (UINT64_MAX: none yet); *shortest:
 * the shortest round trip of the ranks measured before */
static void measure_peer(MPI_Comm comm, int peer, uint64_t result[3], uint64_t* shortest)
{
    uint64_t best_rtt = result[2];
    int more = PING;
    double patience_ends = 0;
    for (int k = 0; k < ROUNDS_PATIENT; k++) {
        uint64_t tp;
        uint64_t t0 = scorep_timer_read();
        MPI_Request answer;
        PMPI_Irecv(&tp, 1, MPI_UINT64_T, peer, SYNC_TAG, comm, &answer);
        PMPI_Send(&more, 1, MPI_INT, peer, SYNC_TAG, comm);
        wait_yielding(&answer);
        uint64_t t1 = scorep_timer_read();
        if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            result[0] = tp;
            result[1] = (uint64_t)((int64_t)(t0 - tp) + (int64_t)(best_rtt / 2));
            result[2] = best_rtt;
        }
        if (k + 1 >= ROUNDS_MIN
            && (*shortest == UINT64_MAX ? k + 1 >= 2 * ROUNDS_MIN : best_rtt <= 2 * *shortest))
            break;
        if (k + 1 == ROUNDS_MAX) patience_ends = seconds_now() + PATIENCE_SECONDS;
        if (k + 1 > ROUNDS_MAX && seconds_now() > patience_ends) break;
    }
    more = SET_ENDS;
    PMPI_Send(&more, 1, MPI_INT, peer, SYNC_TAG, comm);
    if (best_rtt < *shortest) *shortest = best_rtt;
}

static void answer_master(MPI_Comm comm)
{
    for (;;) {
        int more = SYNC_ENDS;
        MPI_Request request;
        PMPI_Irecv(&more, 1, MPI_INT, 0, SYNC_TAG, comm, &request);
        wait_sleeping(&request); /* a set's first round trip, long, never the shortest */
        if (more == SYNC_ENDS) return;
        while (more == PING) {
            uint64_t tp = scorep_timer_read();
            PMPI_Irecv(&more, 1, MPI_INT, 0, SYNC_TAG, comm, &request);
            PMPI_Send(&tp, 1, MPI_UINT64_T, 0, SYNC_TAG, comm);
            wait_yielding(&request);
        }
    }
}

/* Test only: SCOREP_TIMER_TEST_OFFSET_ERROR_NS times the rank is added to
 * the measured offset, a measurement gone wrong on purpose, which the
 * trace's post-mortem correction (trace/trace_clock_condition.c) must repair. */
static int64_t test_offset_error(int rank)
{
    const char* v = getenv("SCOREP_TIMER_TEST_OFFSET_ERROR_NS");
    if (!v || !*v) return 0;
    double ns = strtod(v, NULL);
    return (int64_t)(ns * rank * (double)scorep_timer_ticks_per_second() / 1e9);
}

static const uint64_t* sorting_identities;

static int by_identity(const void* a, const void* b)
{
    int x = *(const int*)a, y = *(const int*)b;
    uint64_t ix = sorting_identities[x], iy = sorting_identities[y];
    if (ix != iy) return ix < iy ? -1 : 1;
    return x < y ? -1 : x > y;
}

void scorep_clock_sync(MPI_Comm comm)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (size < 2) return;
    double begin = seconds_now();
    /* one gather finds which ranks read the same clock (a node's ranks):
     * only the first rank of each clock is measured, the others take its
     * result, and the ranks sharing rank 0's clock get offset 0 exactly */
    uint64_t identity = scorep_timer_clock_identity();
    uint64_t* identities = rank == 0 ? malloc((size_t)size * sizeof *identities) : NULL;
    uint64_t* results = rank == 0 ? malloc((size_t)size * 3 * sizeof *results) : NULL;
    PMPI_Gather(&identity, 1, MPI_UINT64_T, identities, 1, MPI_UINT64_T, 0, comm);
    double gathered = seconds_now(); /* before: waiting for the last rank to come */
    /* rank 0 tells each rank whether it answers pings (1) or not (0) */
    int* measured = rank == 0 ? calloc((size_t)size, sizeof *measured) : NULL;
    int measure_me = 0;
    int* leader = rank == 0 ? malloc((size_t)size * sizeof *leader) : NULL;
    if (rank == 0 && (!identities || !results || !measured || !leader)) {
        scorep_warning("clock synchronisation: out of memory for %d ranks", size);
        PMPI_Abort(comm, 1);
    }
    if (rank == 0) {
        /* ranks ordered by clock (then rank): each clock's first rank leads it */
        int* order = malloc((size_t)size * sizeof *order);
        if (!order) PMPI_Abort(comm, 1);
        for (int r = 0; r < size; r++) order[r] = r;
        sorting_identities = identities;
        qsort(order, (size_t)size, sizeof *order, by_identity);
        for (int i = 0; i < size; i++) {
            int r = order[i];
            leader[r] = i > 0 && identities[order[i - 1]] == identities[r] ? leader[order[i - 1]] : r;
        }
        for (int r = 0; r < size; r++) measured[r] = r != 0 && leader[r] == r;
        free(order);
    }
    PMPI_Scatter(measured, 1, MPI_INT, &measure_me, 1, MPI_INT, 0, comm);
    uint64_t mine[3];
    if (rank == 0) {
        uint64_t shortest = UINT64_MAX;
        for (int peer = 1; peer < size; peer++)
            if (measured[peer]) {
                results[3 * peer + 2] = UINT64_MAX;
                measure_peer(comm, peer, &results[3 * peer], &shortest);
            }
        /* The first rank measured had nothing to compare with, and any rank
         * may have met a disturbed moment throughout: a rank whose round trip
         * is more than twice the shortest is measured once more. */
        for (int peer = 1; peer < size; peer++)
            if (measured[peer] && results[3 * peer + 2] > 2 * shortest)
                measure_peer(comm, peer, &results[3 * peer], &shortest);
        int ends = SYNC_ENDS;
        for (int peer = 1; peer < size; peer++)
            if (measured[peer]) PMPI_Send(&ends, 1, MPI_INT, peer, SYNC_TAG, comm);
        uint64_t now = scorep_timer_read();
        for (int r = 0; r < size; r++) {
            if (leader[r] == 0) { /* rank 0's own clock */
                results[3 * r] = now;
                results[3 * r + 1] = 0;
                results[3 * r + 2] = 0;
            } else if (leader[r] != r) {
                memcpy(&results[3 * r], &results[3 * leader[r]], 3 * sizeof *results);
            }
        }
    } else if (measure_me) {
        answer_master(comm);
    }
    MPI_Request request;
    PMPI_Iscatter(results, 3, MPI_UINT64_T, mine, 3, MPI_UINT64_T, 0, comm, &request);
    if (rank == 0) PMPI_Wait(&request, MPI_STATUS_IGNORE);
    else wait_sleeping(&request);
    mine[1] += (uint64_t)test_offset_error(rank);
    scorep_timer_add_offset(mine[0], (int64_t)mine[1], (double)mine[2] / 2);
    if (rank == 0) {
        int clocks = 0;
        for (int r = 0; r < size; r++) clocks += leader[r] == r;
        double end = seconds_now();
        scorep_verbose("clock offsets of %d ranks (%d clocks) measured in %.0f us after %.0f us waiting for "
                       "the ranks to arrive", size, clocks, (end - gathered) * 1e6, (gathered - begin) * 1e6);
    }
    free(identities);
    free(results);
    free(measured);
    free(leader);
}
