/* Request tracking, RMA and I/O events through the adapter API in one
 * process (fake request handles; no MPI). The resulting profile.json is
 * checked by tests/runtime/test_requests.py:
 *   region "nonblocking": isend 10 B (h1), irecv request (h2), persistent
 *     send_init 20 B (h3) started twice, recv_init (h4) started once
 *   region "wait": completes h1, h2 (source 3, 30 B), h3 twice, h4 cancelled,
 *     an unknown handle (ignored) and h1 again (already completed: ignored)
 *   region "rma": put 100 B, get 50 B, atomic 8 B out / 8 B in, fence with
 *     16 B out / 32 B in
 *   region "io": 1000 B read, 24 B written */
#include <stdio.h>

#include "scorep_wrapgen/adapter.h"

int main(void)
{
    scorep_region nonblocking = scorep_region_define("nonblocking", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region wait = scorep_region_define("wait", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region rma = scorep_region_define("rma", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region io = scorep_region_define("io", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    int members[3] = {0, 0, 0};
    scorep_comm comm = scorep_comm_define(42, 0, 3, members, "three");

    scorep_enter(nonblocking);
    scorep_mpi_isend(comm, 1, 5, 10, 1);
    scorep_mpi_irecv_request(comm, 2);
    scorep_mpi_send_init(comm, 2, 6, 20, 3);
    scorep_mpi_recv_init(comm, 4);
    scorep_mpi_request_start(3);
    scorep_mpi_request_start(4);
    scorep_mpi_request_test(2);
    scorep_exit(nonblocking);

    scorep_enter(wait);
    scorep_mpi_request_complete(1, 0, 0, 0, 0);
    scorep_mpi_request_complete(2, 2, 9, 30, 0);
    scorep_mpi_request_complete(3, 0, 0, 0, 0);
    scorep_mpi_request_start(3);
    scorep_mpi_request_complete(3, 0, 0, 0, 0);
    scorep_mpi_request_cancel(4);
    scorep_mpi_request_complete(4, 0, 0, 0, 1);
    scorep_mpi_request_complete(999, 1, 1, 1234, 0);
    scorep_mpi_request_complete(1, 1, 1, 1234, 0);
    scorep_mpi_request_free(3);
    scorep_mpi_request_free(4);
    scorep_mpi_request_start(3);   /* freed: ignored */
    scorep_exit(wait);

    scorep_window win = scorep_rma_window_define(7, comm, "win");
    scorep_enter(rma);
    scorep_rma_window_create(win);
    scorep_rma_put(win, 1, 100, 1);
    scorep_rma_get(win, 2, 50, 2);
    scorep_rma_atomic(win, 1, SCOREP_RMA_ATOMIC_FETCH_AND_ADD, 8, 8, 3);
    scorep_rma_op_complete(win, 1, 0);
    scorep_rma_collective_begin();
    scorep_rma_collective_end(SCOREP_COLL_BARRIER, SCOREP_RMA_SYNC_LEVEL_PROCESS_AND_MEMORY, win, SCOREP_NO_ROOT, 16, 32);
    scorep_rma_lock(win, 1, 1);
    scorep_rma_unlock(win, 1);
    scorep_rma_sync(win, -1);
    scorep_rma_group_sync(SCOREP_RMA_SYNC_LEVEL_PROCESS, win, scorep_comm_define(0, 1, 3, members, NULL));
    scorep_rma_window_free(win);
    scorep_exit(rma);

    scorep_enter(io);
    scorep_io_bytes(1000, 24);
    scorep_exit(io);
    printf("world rank of rank 2 in 'three': %d\n", scorep_comm_world_rank(comm, 2));
    return 0;
}
