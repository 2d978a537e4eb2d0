/*
 * MPI trace test program: real MPI communication, with the events fed
 * directly through the adapter API (no generated wrappers), so the test knows
 * exactly which events the trace must hold.
 *
 * usage: mpirun -n <even number> mpi_events <iterations> [local_pairs]
 *
 * Per rank r of P ranks (left = r-1, right = r+1, cyclic), per iteration i:
 *   local_pairs enter/exit pairs of region "local_work" (no MPI; makes the
 *   trace big without making the run slow)
 *   MPI_Send to right, tag i % 3, 8 * (i % 100 + 1) bytes    (region MPI_Send)
 *   MPI_Recv from left, same tag and size                      (region MPI_Recv)
 *   MPI_Isend to left, tag 100, 4 bytes; MPI_Irecv from right  (MPI_Isend, MPI_Irecv)
 *   MPI_Waitall completing both                                (MPI_Waitall)
 *   MPI_Allreduce on MPI_COMM_WORLD, 8 bytes                   (MPI_Allreduce)
 *   parameter "iteration" = i
 * Once, on the communicator of ranks with the same parity ("parity"), rank 0
 * of it sends 16 bytes with tag 7 to its rank 1 (regions MPI_Send / MPI_Recv),
 * and every rank records a string parameter, an RMA put on a window over
 * MPI_COMM_WORLD, and a fence.
 * Everything happens inside region "main".
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include <scorep_wrapgen/adapter.h>
#include <scorep_wrapgen/mpi_layer.h>

static scorep_region mpi_region(const char* name, scorep_region_role role)
{
    return scorep_region_define(name, NULL, SCOREP_PARADIGM_MPI, role, "MPI");
}

static scorep_comm define_parity_comm(MPI_Comm comm)
{
    int size, world_member0;
    MPI_Comm_size(comm, &size);
    int* ranks = malloc(size * sizeof *ranks);
    int* world_ranks = malloc(size * sizeof *world_ranks);
    MPI_Group group, world_group;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(group, size, ranks, world_group, world_ranks);
    world_member0 = world_ranks[0];
    scorep_comm id = scorep_comm_define(((uint64_t)world_member0 << 32) | 0xFFFF0001u, 0, (uint32_t)size,
                                        world_ranks, "parity");
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    free(ranks);
    free(world_ranks);
    return id;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    scorep_mpi_layer_init();
    int iterations = argc > 1 ? atoi(argv[1]) : 10;
    long local_pairs = argc > 2 ? atol(argv[2]) : 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    scorep_region main_region = scorep_region_define("main", NULL, SCOREP_PARADIGM_USER,
                                                     SCOREP_ROLE_FUNCTION, NULL);
    scorep_region send = mpi_region("MPI_Send", SCOREP_ROLE_POINT2POINT);
    scorep_region recv = mpi_region("MPI_Recv", SCOREP_ROLE_POINT2POINT);
    scorep_region isend = mpi_region("MPI_Isend", SCOREP_ROLE_POINT2POINT);
    scorep_region irecv = mpi_region("MPI_Irecv", SCOREP_ROLE_POINT2POINT);
    scorep_region waitall = mpi_region("MPI_Waitall", SCOREP_ROLE_POINT2POINT);
    scorep_region allreduce = mpi_region("MPI_Allreduce", SCOREP_ROLE_ALL2ALL);
    scorep_region put = mpi_region("MPI_Put", SCOREP_ROLE_RMA);
    scorep_region fence = mpi_region("MPI_Win_fence", SCOREP_ROLE_RMA);
    scorep_region local_work = scorep_region_define("local_work", NULL, SCOREP_PARADIGM_USER,
                                                    SCOREP_ROLE_FUNCTION, NULL);
    scorep_parameter iteration = scorep_parameter_define("iteration", SCOREP_PARAMETER_INT64);
    scorep_parameter phase = scorep_parameter_define("phase", SCOREP_PARAMETER_STRING);

    scorep_enter(main_region);
    char buffer[1024] = {0}, incoming[1024];
    for (int i = 0; i < iterations; i++) {
        int tag = i % 3, bytes = 8 * (i % 100 + 1);
        scorep_parameter_int(iteration, i);
        for (long k = 0; k < local_pairs; k++) {
            scorep_enter(local_work);
            scorep_exit(local_work);
        }
        /* even ranks send first, odd ranks receive first: no deadlock */
        for (int step = 0; step < 2; step++) {
            if ((step == 0) == (rank % 2 == 0)) {
                scorep_enter(send);
                scorep_mpi_send(SCOREP_COMM_WORLD, right, tag, (uint64_t)bytes);
                MPI_Send(buffer, bytes, MPI_BYTE, right, tag, MPI_COMM_WORLD);
                scorep_exit(send);
            } else {
                MPI_Status status;
                scorep_enter(recv);
                MPI_Recv(incoming, bytes, MPI_BYTE, left, tag, MPI_COMM_WORLD, &status);
                scorep_mpi_recv(SCOREP_COMM_WORLD, status.MPI_SOURCE, status.MPI_TAG,
                                (uint64_t)bytes);
                scorep_exit(recv);
            }
        }

        MPI_Request requests[2];
        scorep_request send_request = 2 * (uint64_t)i + 1, recv_request = 2 * (uint64_t)i + 2;
        scorep_enter(isend);
        MPI_Isend(buffer, 4, MPI_BYTE, left, 100, MPI_COMM_WORLD, &requests[0]);
        scorep_mpi_isend(SCOREP_COMM_WORLD, left, 100, 4, send_request);
        scorep_exit(isend);
        scorep_enter(irecv);
        MPI_Irecv(incoming, 4, MPI_BYTE, right, 100, MPI_COMM_WORLD, &requests[1]);
        scorep_mpi_irecv_request(SCOREP_COMM_WORLD, recv_request);
        scorep_exit(irecv);
        scorep_enter(waitall);
        MPI_Status statuses[2];
        MPI_Waitall(2, requests, statuses);
        scorep_mpi_request_complete(send_request, 0, 0, 0, 0);
        scorep_mpi_request_complete(recv_request, statuses[1].MPI_SOURCE, statuses[1].MPI_TAG, 4, 0);
        scorep_exit(waitall);

        double value = rank, sum;
        scorep_enter(allreduce);
        scorep_mpi_collective_begin();
        MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        scorep_mpi_collective_end(SCOREP_COLL_ALLREDUCE, SCOREP_COMM_WORLD, SCOREP_NO_ROOT, 8, 8);
        scorep_exit(allreduce);
    }

    MPI_Comm parity;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
    scorep_comm parity_id = define_parity_comm(parity);
    int parity_rank;
    MPI_Comm_rank(parity, &parity_rank);
    if (parity_rank == 0) {
        scorep_enter(send);
        scorep_mpi_send(parity_id, 1, 7, 16);
        MPI_Send(buffer, 16, MPI_BYTE, 1, 7, parity);
        scorep_exit(send);
    } else if (parity_rank == 1) {
        MPI_Status status;
        scorep_enter(recv);
        MPI_Recv(incoming, 16, MPI_BYTE, 0, 7, parity, &status);
        scorep_mpi_recv(parity_id, status.MPI_SOURCE, status.MPI_TAG, 16);
        scorep_exit(recv);
    }
    MPI_Comm_free(&parity);

    scorep_parameter_string(phase, "rma");
    scorep_window window = scorep_rma_window_define(1, SCOREP_COMM_WORLD, "window");
    scorep_rma_window_create(window);
    scorep_enter(put);
    scorep_rma_put(window, right, 64, 1);
    scorep_rma_op_complete(window, 1, 1);
    scorep_exit(put);
    scorep_enter(fence);
    scorep_rma_collective_begin();
    MPI_Barrier(MPI_COMM_WORLD);
    scorep_rma_collective_end(SCOREP_COLL_BARRIER, SCOREP_RMA_SYNC_LEVEL_PROCESS_AND_MEMORY,
                              window, SCOREP_NO_ROOT, 0, 0);
    scorep_exit(fence);
    scorep_rma_window_free(window);
    scorep_exit(main_region);

    scorep_mpi_layer_finalize();
    MPI_Finalize();
    return 0;
}
