/* A deterministic point-to-point program for tests/mpi/test_trace_sequence.py:
 * every rank's sequence of trace records is the same in every run (no
 * wildcard whose match could vary, no test loop whose count could vary, no
 * completion order left to MPI). Run on 3 ranks. It covers the paths of
 * the fast point-to-point event path: MPI_Send/Recv (with and without a status), MPI_Isend/Irecv with
 * MPI_Wait, MPI_Waitall, MPI_Waitany and MPI_Waitsome, MPI_Sendrecv,
 * persistent requests, MPI_PROC_NULL peers, a split communicator (world
 * ranks in the records) and a collective in between. Do not change it: the
 * expected sequences in tests/mpi/data/ were made from it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[64], in[64], in2[64];
    for (int i = 0; i < 64; i++)
        out[i] = rank * 100 + i;
    long checksum = 0;
    MPI_Status status;

    /* 1. blocking ring, even ranks first; one with a status, one without */
    for (int k = 0; k < 2; k++) {
        if (rank % 2 == 0) {
            MPI_Send(out, 8 + k, MPI_INT, right, 10 + k, MPI_COMM_WORLD);
            MPI_Recv(in, 64, MPI_INT, left, 10 + k, MPI_COMM_WORLD, k ? &status : MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 64, MPI_INT, left, 10 + k, MPI_COMM_WORLD, k ? &status : MPI_STATUS_IGNORE);
            MPI_Send(out, 8 + k, MPI_INT, right, 10 + k, MPI_COMM_WORLD);
        }
        checksum += in[0];
    }

    /* 2. non-blocking ring: Irecv, Isend, MPI_Wait each (receive first) */
    MPI_Request requests[4];
    MPI_Irecv(in, 64, MPI_INT, left, 20, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(out, 16, MPI_INT, right, 20, MPI_COMM_WORLD, &requests[1]);
    MPI_Wait(&requests[0], &status);
    MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
    checksum += in[1];

    /* 3. both directions, MPI_Waitall */
    MPI_Irecv(in, 64, MPI_INT, left, 30, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(in2, 64, MPI_INT, right, 31, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(out, 4, MPI_INT, right, 30, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(out, 5, MPI_INT, left, 31, MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    checksum += in[2] + in2[2];

    /* 4. MPI_Waitany and MPI_Waitsome with one active request each */
    requests[1] = MPI_REQUEST_NULL;
    MPI_Irecv(in, 64, MPI_INT, left, 40, MPI_COMM_WORLD, &requests[0]);
    MPI_Send(out, 6, MPI_INT, right, 40, MPI_COMM_WORLD);
    int index = -1, count = 0, indices[2];
    MPI_Waitany(2, requests, &index, &status);
    MPI_Irecv(in, 64, MPI_INT, left, 41, MPI_COMM_WORLD, &requests[1]);
    MPI_Send(out, 7, MPI_INT, right, 41, MPI_COMM_WORLD);
    MPI_Waitsome(2, requests, &count, indices, MPI_STATUSES_IGNORE);
    checksum += index + count + in[3];

    /* 5. MPI_Sendrecv, and MPI_PROC_NULL peers (visits, no messages) */
    MPI_Sendrecv(out, 3, MPI_INT, right, 50, in, 64, MPI_INT, left, 50, MPI_COMM_WORLD, &status);
    MPI_Send(out, 3, MPI_INT, MPI_PROC_NULL, 51, MPI_COMM_WORLD);
    MPI_Recv(in, 3, MPI_INT, MPI_PROC_NULL, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Isend(out, 3, MPI_INT, MPI_PROC_NULL, 52, MPI_COMM_WORLD, &requests[0]);
    MPI_Wait(&requests[0], MPI_STATUS_IGNORE);

    /* 6. persistent requests, started twice */
    MPI_Recv_init(in, 64, MPI_INT, left, 60, MPI_COMM_WORLD, &requests[0]);
    MPI_Send_init(out, 2, MPI_INT, right, 60, MPI_COMM_WORLD, &requests[1]);
    for (int k = 0; k < 2; k++) {
        MPI_Startall(2, requests);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&requests[0]);
    MPI_Request_free(&requests[1]);

    /* 7. a split communicator: peers are ranks in it, the trace names world ranks */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    if (hsize > 1) {
        if (hrank == 0) {
            MPI_Send(out, 12, MPI_INT, 1, 70, half);
            MPI_Recv(in, 64, MPI_INT, 1, 71, half, MPI_STATUS_IGNORE);
        } else if (hrank == 1) {
            MPI_Recv(in, 64, MPI_INT, 0, 70, half, MPI_STATUS_IGNORE);
            MPI_Send(out, 13, MPI_INT, 0, 71, half);
        }
    }
    long total = 0;
    MPI_Allreduce(&checksum, &total, 1, MPI_LONG, MPI_SUM, half);
    MPI_Comm_free(&half);

    MPI_Barrier(MPI_COMM_WORLD);
    printf("RESULT rank %d checksum %ld\n", rank, checksum);
    MPI_Finalize();
    return 0;
}
