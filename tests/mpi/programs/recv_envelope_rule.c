/* The core's receive-envelope rule through the adapter API alone (fake request
 * handles, a fake status self-check; no MPI). Traced; tests/mpi/
 * test_recv_envelope_rule.py reads the MpiIrecv events in this order:
 *   h1  MPI_Irecv    posted (1, 5, 40)        status (1, 5, 24) -> (1, 5, 24)
 *   h2  MPI_Irecv    posted (any, any, 40)    status (2, 9, 40) -> (2, 9, 40)
 *   h3  MPI_Irecv    posted (1, 5, 40)        status (0, 0, 0)  -> (1, 5, 40)
 *   h4  MPI_Irecv    posted (any, 5, 40)      status (2, 6, 8)  -> (-1, 5, 40)
 *   h5  MPI_Irecv    posted (1, 5, 40)        status (1, 5, 48) -> (1, 5, 40)
 *   h6  Isendrecv    posted (1, 5, 40), wrong status (1, 5, 24) -> (1, 5, 40)
 *   h7  Isendrecv    posted (-2, -1, 40), wrong status (2, 9, 40) -> (-1, -1, 40)
 *   h8  Isendrecv to MPI_PROC_NULL, no check  status (2, 3, 4)  -> (2, 3, 4)
 *   h9  recv_init    (no posted envelope)     status (2, 9, 12) -> (2, 9, 12)
 * The Isendrecv requests h6 and h7 also complete their sends. The self-check
 * runs once, at h6, not before. */
#include <stdio.h>

#include "scorep_wrapgen/adapter.h"

static int checks;

static int statuses_are_wrong(scorep_recv_origin origin)
{
    checks++;
    return origin == SCOREP_RECV_ISENDRECV ? 0 : 1;
}

int main(void)
{
    scorep_region region = scorep_region_define("receives", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION,
                                                NULL);
    int members[3] = {0, 0, 0};   /* one process: every rank is world rank 0 */
    scorep_comm comm = scorep_comm_define(42, 0, 3, members, "three");
    scorep_register_status_check(SCOREP_RECV_ISENDRECV, statuses_are_wrong);

    scorep_enter(region);
    scorep_mpi_irecv_request_posted(comm, 1, 5, 40, SCOREP_RECV_IRECV, 1);
    scorep_mpi_irecv_request_posted(comm, -1, -1, 40, SCOREP_RECV_IRECV, 2);
    scorep_mpi_irecv_request_posted(comm, 1, 5, 40, SCOREP_RECV_IRECV, 3);
    scorep_mpi_irecv_request_posted(comm, -2, 5, 40, SCOREP_RECV_IRECV, 4);
    scorep_mpi_irecv_request_posted(comm, 1, 5, 40, SCOREP_RECV_IRECV, 5);
    printf("checks before Isendrecv %d\n", checks);
    scorep_mpi_isend(comm, 2, 5, 16, 6);
    scorep_mpi_irecv_request_posted(comm, 1, 5, 40, SCOREP_RECV_ISENDRECV, 6);
    scorep_mpi_isend(comm, 2, 5, 16, 7);
    scorep_mpi_irecv_request_posted(comm, -2, -1, 40, SCOREP_RECV_ISENDRECV, 7);
    scorep_mpi_irecv_request_posted(comm, 2, 3, 16, SCOREP_RECV_ISENDRECV_NO_SEND, 8);
    scorep_mpi_recv_init(comm, 9);
    scorep_mpi_request_start(9);

    scorep_mpi_request_complete(1, 1, 5, 24, 0);
    scorep_mpi_request_complete(2, 2, 9, 40, 0);
    scorep_mpi_request_complete(3, 0, 0, 0, 0);
    scorep_mpi_request_complete(4, 2, 6, 8, 0);
    scorep_mpi_request_complete(5, 1, 5, 48, 0);
    scorep_mpi_request_complete(6, 1, 5, 24, 0);
    scorep_mpi_request_complete(7, 2, 9, 40, 0);
    scorep_mpi_request_complete(8, 2, 3, 4, 0);
    scorep_mpi_request_complete(9, 2, 9, 12, 0);
    scorep_exit(region);
    printf("checks %d\n", checks);
    return 0;
}
