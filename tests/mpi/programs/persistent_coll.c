/* MPI 4.0 persistent collectives, for tests/mpi/test_persistent_collectives.py:
 * MPI_Allreduce_init (3 doubles), MPI_Bcast_init (5 ints from root 2),
 * MPI_Barrier_init and MPI_Neighbor_allgather_init (2 ints per neighbour) on
 * a Cartesian 2 x 2 communicator, dimension 0 periodic, dimension 1 not.
 * Each request is started NSTART times with MPI_Start (each completed by
 * MPI_Wait), then all four NSTARTALL times with one MPI_Startall (completed
 * by MPI_Waitall), then freed. Needs 4 processes. Each rank prints
 * `RESULT <rank> <checksum>`: the same with and without the adapter. */
#include <mpi.h>
#include <stdio.h>

#define NSTART 3
#define NSTARTALL 2
#define ROOT 2

int main(int argc, char** argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) fprintf(stderr, "needs 4 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int dims[2] = {2, 2}, periods[2] = {1, 0};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);

    double in[3], out[3];
    int bcast[5], nsend[2], nrecv[8];
    MPI_Request req[4];
    MPI_Allreduce_init(in, out, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
    MPI_Bcast_init(bcast, 5, MPI_INT, ROOT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]);
    MPI_Neighbor_allgather_init(nsend, 2, MPI_INT, nrecv, 2, MPI_INT, cart, MPI_INFO_NULL, &req[3]);

    unsigned long checksum = 1;
    for (int round = 0; round < NSTART + NSTARTALL; round++) {
        for (int i = 0; i < 3; i++) in[i] = rank * 10 + i + round;
        for (int i = 0; i < 5; i++) bcast[i] = rank == ROOT ? 100 * round + i : -1;
        nsend[0] = rank + round;
        nsend[1] = -rank;
        for (int i = 0; i < 8; i++) nrecv[i] = -7;
        if (round < NSTART) {
            for (int r = 0; r < 4; r++) {
                MPI_Start(&req[r]);
                MPI_Wait(&req[r], MPI_STATUS_IGNORE);
            }
        } else {
            MPI_Startall(4, req);
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        }
        for (int i = 0; i < 3; i++) checksum = checksum * 31 + (unsigned long)out[i];
        for (int i = 0; i < 5; i++) checksum = checksum * 31 + (unsigned long)bcast[i];
        for (int i = 0; i < 8; i++) checksum = checksum * 31 + (unsigned long)(nrecv[i] + 1000);
    }
    for (int r = 0; r < 4; r++) MPI_Request_free(&req[r]);
    MPI_Comm_free(&cart);
    printf("RESULT %d %lu\n", rank, checksum);
    MPI_Finalize();
    return 0;
}
