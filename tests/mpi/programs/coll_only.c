/* Only collectives, one call of each of 15 procedures per rank, on MPI_COMM_WORLD
 * (tests/mpi/test_collective_bytes.py computes each call's bytes from the
 * counts and types below). The same sequence as coll_only.F90. Each rank
 * prints "RESULT <rank> <checksum>" of what it received. */
#include <mpi.h>
#include <stdio.h>

#define MAXP 16

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double d[8 * MAXP] = {0}, dr[8 * MAXP] = {0};
    int i4[8 * MAXP] = {0}, ir[8 * MAXP] = {0};
    long checksum = 0;

    /* 8 doubles from rank 1 */
    for (int i = 0; i < 8; i++)
        d[i] = rank == 1 ? i + 0.5 : 0;
    MPI_Bcast(d, 8, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    checksum += (long)d[7];
    /* 3 ints to rank 0 */
    for (int i = 0; i < 3; i++)
        i4[i] = rank + i;
    MPI_Reduce(i4, ir, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    checksum += ir[2];
    /* 4 doubles, in place */
    for (int i = 0; i < 4; i++)
        d[i] = rank;
    MPI_Allreduce(MPI_IN_PLACE, d, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    checksum += (long)d[3];
    /* 2 ints from each rank to rank 0, which passes its own in place */
    for (int i = 0; i < 2 * size; i++)
        ir[i] = i / 2 == rank ? rank : -1;
    if (rank == 0)
        MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, ir, 2, MPI_INT, 0, MPI_COMM_WORLD);
    else
        MPI_Gather(&ir[2 * rank], 2, MPI_INT, NULL, 2, MPI_INT, 0, MPI_COMM_WORLD);
    checksum += rank == 0 ? ir[2 * size - 1] : 0;
    /* 3 ints to each rank from the last one */
    for (int i = 0; i < 3 * size; i++)
        i4[i] = i;
    MPI_Scatter(i4, 3, MPI_INT, ir, 3, MPI_INT, size - 1, MPI_COMM_WORLD);
    checksum += ir[2];
    /* 2 ints from each rank to all */
    i4[0] = rank;
    i4[1] = -rank;
    MPI_Allgather(i4, 2, MPI_INT, ir, 2, MPI_INT, MPI_COMM_WORLD);
    checksum += ir[2 * size - 2];
    /* 1 double from each rank to each */
    for (int i = 0; i < size; i++)
        d[i] = rank * 100 + i;
    MPI_Alltoall(d, 1, MPI_DOUBLE, dr, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    checksum += (long)dr[size - 1];
    /* rank r contributes r + 1 ints */
    int counts[MAXP], displs[MAXP], sendcounts[MAXP], sdispls[MAXP];
    for (int i = 0, at = 0; i < size; at += i + 1, i++) {
        counts[i] = i + 1;
        displs[i] = at;
    }
    for (int i = 0; i <= rank; i++)
        i4[i] = rank;
    MPI_Allgatherv(i4, rank + 1, MPI_INT, ir, counts, displs, MPI_INT, MPI_COMM_WORLD);
    checksum += ir[displs[size - 1]];
    /* rank r sends r + 1 ints to each rank, receives i + 1 from rank i */
    for (int i = 0; i < size; i++) {
        sendcounts[i] = rank + 1;
        sdispls[i] = i * (rank + 1);
    }
    for (int i = 0; i < size * (rank + 1); i++)
        i4[i] = rank;
    MPI_Alltoallv(i4, sendcounts, sdispls, MPI_INT, ir, counts, displs, MPI_INT, MPI_COMM_WORLD);
    checksum += ir[displs[size - 1]];
    /* to rank i: i + 1 elements of an int (even i) or a double (odd i) */
    MPI_Datatype sendtypes[MAXP], recvtypes[MAXP];
    int wsendcounts[MAXP], wrecvcounts[MAXP], wsdispls[MAXP], wrdispls[MAXP];
    for (int i = 0; i < size; i++) {
        sendtypes[i] = i % 2 ? MPI_DOUBLE : MPI_INT;
        wsendcounts[i] = i + 1;
        wsdispls[i] = 0;
        recvtypes[i] = rank % 2 ? MPI_DOUBLE : MPI_INT;
        wrecvcounts[i] = rank + 1;
        wrdispls[i] = i * (rank + 1) * 8;
    }
    for (int i = 0; i < MAXP; i++)
        d[i] = rank;
    MPI_Alltoallw(d, wsendcounts, wsdispls, sendtypes, dr, wrecvcounts, wrdispls, recvtypes, MPI_COMM_WORLD);
    checksum += (long)dr[0];
    /* 2 ints of the sum to each rank */
    for (int i = 0; i < 2 * size; i++)
        i4[i] = rank + i;
    MPI_Reduce_scatter_block(i4, ir, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    checksum += ir[1];
    /* 1 double, prefix sums */
    d[0] = rank + 1;
    MPI_Scan(d, dr, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    checksum += (long)dr[0];
    i4[0] = rank + 1;
    ir[0] = 0;
    MPI_Exscan(i4, ir, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    checksum += rank > 0 ? ir[0] : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    /* 2 ints, non-blocking */
    i4[0] = rank;
    i4[1] = 1;
    MPI_Request request;
    MPI_Iallreduce(i4, ir, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    checksum += ir[0] + ir[1];

    printf("RESULT %d %ld\n", rank, checksum);
    MPI_Finalize();
    return 0;
}
