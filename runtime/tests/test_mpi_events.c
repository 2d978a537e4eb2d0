/* usage: mpirun -n <P> test_mpi_events <iterations> [abort]
 * Real MPI communication with the events fed directly through the adapter
 * API and the MPI layer (no generated wrappers), so tests/runtime/test_mpi.py
 * knows exactly what the unified profile must hold. Per rank r, iteration i:
 *   MPI_Send to r+1 (cyclic), tag i, 8*(i+1) bytes; "MPI_Recv" from r-1 (a
 *   receive posted before the send and completed in region MPI_Recv)
 *   MPI_Isend to r-1, tag 100, 4 bytes; MPI_Irecv from r+1; MPI_Waitall
 *   MPI_Allreduce on MPI_COMM_WORLD, 8 bytes in and out
 * Once: MPI_Comm_split by parity; rank 0 of each half sends 16 bytes (tag 7)
 * to rank 1 of it. Everything happens inside region "main". At the end every
 * rank starts a worker thread that records region "worker" 10 times (a
 * second location per rank that starts late).
 * With "abort", rank 1 calls MPI_Abort after the loop while the others wait
 * in a barrier; every rank must leave its partial profile. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "scorep_wrapgen/adapter.h"
#include "scorep_wrapgen/mpi_layer.h"

static void* worker(void* arg)
{
    (void)arg;
    scorep_region r = scorep_region_define("worker", "test_mpi_events.c", SCOREP_PARADIGM_USER,
                                           SCOREP_ROLE_FUNCTION, NULL);
    for (int i = 0; i < 10; i++) {
        scorep_enter(r);
        scorep_exit(r);
    }
    return NULL;
}

static scorep_region mpi_region(const char* name, scorep_region_role role, const char* group)
{
    return scorep_region_define(name, NULL, SCOREP_PARADIGM_MPI, role, group);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    scorep_mpi_layer_init();
    int iterations = argc > 1 ? atoi(argv[1]) : 5;
    int do_abort = argc > 2 && strcmp(argv[2], "abort") == 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    scorep_region main_r = scorep_region_define("main", "test_mpi_events.c", SCOREP_PARADIGM_USER,
                                                SCOREP_ROLE_FUNCTION, NULL);
    scorep_region r_send = mpi_region("MPI_Send", SCOREP_ROLE_POINT2POINT, "P2P");
    scorep_region r_recv = mpi_region("MPI_Recv", SCOREP_ROLE_POINT2POINT, "P2P");
    scorep_region r_isend = mpi_region("MPI_Isend", SCOREP_ROLE_POINT2POINT, "P2P");
    scorep_region r_irecv = mpi_region("MPI_Irecv", SCOREP_ROLE_POINT2POINT, "P2P");
    scorep_region r_waitall = mpi_region("MPI_Waitall", SCOREP_ROLE_POINT2POINT, "P2P");
    scorep_region r_allreduce = mpi_region("MPI_Allreduce", SCOREP_ROLE_ALL2ALL, "COLL");
    scorep_region r_split = mpi_region("MPI_Comm_split", SCOREP_ROLE_COLLECTIVE, "CG");

    scorep_enter(main_r);
    char buffer[1024] = {0}, incoming[1024], small[4] = {0}, small_in[4];
    for (int i = 0; i < iterations; i++) {
        int bytes = 8 * (i + 1);
        /* the receive is posted first so that the blocking send is safe for
         * any number of ranks (MPICH does not buffer a send to oneself) */
        MPI_Request ring_request;
        MPI_Irecv(incoming, bytes, MPI_BYTE, left, i, MPI_COMM_WORLD, &ring_request);
        scorep_enter(r_send);
        scorep_mpi_send(scorep_mpi_comm_id(MPI_COMM_WORLD), right, i, (uint64_t)bytes);
        MPI_Send(buffer, bytes, MPI_BYTE, right, i, MPI_COMM_WORLD);
        scorep_exit(r_send);

        MPI_Status status;
        scorep_enter(r_recv);
        MPI_Wait(&ring_request, &status);
        int count;
        MPI_Get_count(&status, MPI_BYTE, &count);
        scorep_mpi_recv(SCOREP_COMM_WORLD, status.MPI_SOURCE, status.MPI_TAG, (uint64_t)count);
        scorep_exit(r_recv);

        MPI_Request requests[2];
        scorep_enter(r_isend);
        MPI_Isend(small, 4, MPI_BYTE, left, 100, MPI_COMM_WORLD, &requests[0]);
        scorep_mpi_isend(SCOREP_COMM_WORLD, left, 100, 4, scorep_mpi_request_handle(requests[0]));
        scorep_exit(r_isend);
        scorep_enter(r_irecv);
        MPI_Irecv(small_in, 4, MPI_BYTE, right, 100, MPI_COMM_WORLD, &requests[1]);
        scorep_mpi_irecv_request(SCOREP_COMM_WORLD, scorep_mpi_request_handle(requests[1]));
        scorep_exit(r_irecv);
        scorep_enter(r_waitall);
        scorep_request handles[2] = {scorep_mpi_request_handle(requests[0]),
                                     scorep_mpi_request_handle(requests[1])};
        MPI_Status statuses[2];
        MPI_Waitall(2, requests, statuses);
        for (int k = 0; k < 2; k++)
            scorep_mpi_request_complete_status(handles[k], &statuses[k], SCOREP_LANGUAGE_C);
        scorep_exit(r_waitall);

        double in = rank, out;
        scorep_enter(r_allreduce);
        scorep_mpi_collective_begin();
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        scorep_mpi_collective_end(SCOREP_COLL_ALLREDUCE, SCOREP_COMM_WORLD, SCOREP_NO_ROOT, 8, 8);
        scorep_exit(r_allreduce);
    }

    MPI_Comm parity;
    scorep_enter(r_split);
    scorep_mpi_collective_begin();
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
    scorep_comm parity_id = scorep_mpi_comm_create(parity);
    scorep_mpi_collective_end(SCOREP_COLL_CREATE_HANDLE, SCOREP_COMM_WORLD, SCOREP_NO_ROOT, 0, 0);
    scorep_exit(r_split);
    int prank, psize;
    MPI_Comm_rank(parity, &prank);
    MPI_Comm_size(parity, &psize);
    if (psize > 1 && prank == 0) {
        scorep_enter(r_send);
        scorep_mpi_send(parity_id, 1, 7, 16);
        MPI_Send(buffer, 16, MPI_BYTE, 1, 7, parity);
        scorep_exit(r_send);
    } else if (psize > 1 && prank == 1) {
        MPI_Status status;
        scorep_enter(r_recv);
        MPI_Recv(buffer, 16, MPI_BYTE, 0, 7, parity, &status);
        scorep_mpi_recv(parity_id, 0, 7, 16);
        scorep_exit(r_recv);
    }

    if (do_abort) {
        if (rank == 1) {
            scorep_mpi_layer_abort();
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
        MPI_Barrier(MPI_COMM_WORLD);  /* never returns: the job is torn down */
    }
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    pthread_join(thread, NULL);
    scorep_mpi_comm_free(parity);
    MPI_Comm_free(&parity);
    scorep_exit(main_r);
    scorep_mpi_layer_finalize();
    MPI_Finalize();
    return 0;
}
