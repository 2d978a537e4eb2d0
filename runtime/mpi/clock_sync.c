/* Clock synchronisation: the offset of every rank's clock to rank 0's (the
 * master clock), measured after MPI_Init and again before MPI_Finalize.
 *
 * Rank 0 exchanges ROUNDS ping-pongs with each other rank in turn: it reads
 * its clock (t0), sends an empty message, the peer answers with its own
 * clock reading (tp), rank 0 reads its clock again (t1). The exchange with
 * the shortest round trip bounds the error best: the peer read its clock
 * somewhere in [t0, t1], so its offset is (t0 + t1) / 2 - tp, off by at
 * most half the round trip (sent along as the offset's uncertainty). Rank 0
 * then tells the peer its offset and the local time it belongs to.
 *
 * The two offsets of a rank go to the timer (timer.c): the trace writes them
 * as OTF2 ClockOffset records, from which OTF2 readers interpolate every
 * event's time onto the master clock (offset and drift), and the core
 * converts the times it writes itself the same way. docs/CLOCKS.md. */
#include <stdint.h>
#include <time.h>

#include "clock_sync.h"
#include "internal.h"
#include "timer.h"

#define ROUNDS 5
/* a tag of the layer's private communicator the layer uses for nothing else */
#define SYNC_TAG 0x5C10

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void measure_peer(MPI_Comm comm, int peer)
{
    uint64_t best_rtt = UINT64_MAX, result[3] = {0, 0, 0}; /* peer's time, offset, round trip */
    for (int k = 0; k < ROUNDS; k++) {
        uint64_t tp;
        uint64_t t0 = scorep_timer_read();
        PMPI_Send(NULL, 0, MPI_BYTE, peer, SYNC_TAG, comm);
        PMPI_Recv(&tp, 1, MPI_UINT64_T, peer, SYNC_TAG, comm, MPI_STATUS_IGNORE);
        uint64_t t1 = scorep_timer_read();
        if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            result[0] = tp;
            result[1] = (uint64_t)((int64_t)(t0 - tp) + (int64_t)(best_rtt / 2));
            result[2] = best_rtt;
        }
    }
    PMPI_Send(result, 3, MPI_UINT64_T, peer, SYNC_TAG, comm);
}

static void answer_master(MPI_Comm comm)
{
    for (int k = 0; k < ROUNDS; k++) {
        PMPI_Recv(NULL, 0, MPI_BYTE, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
        uint64_t tp = scorep_timer_read();
        PMPI_Send(&tp, 1, MPI_UINT64_T, 0, SYNC_TAG, comm);
    }
    uint64_t result[3];
    PMPI_Recv(result, 3, MPI_UINT64_T, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
    scorep_timer_add_offset(result[0], (int64_t)result[1], (double)result[2] / 2);
}

void scorep_clock_sync(MPI_Comm comm)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (size < 2) return;
    if (rank == 0) {
        double begin = seconds_now();
        for (int peer = 1; peer < size; peer++) measure_peer(comm, peer);
        /* the master's own records: offset 0, so every location carries them */
        scorep_timer_add_offset(scorep_timer_read(), 0, 0.0);
        scorep_verbose("clock offsets of %d ranks measured in %.0f us", size, (seconds_now() - begin) * 1e6);
    } else {
        answer_master(comm);
    }
}
