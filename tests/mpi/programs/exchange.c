/* A test program that exercises the C MPI adapter's semantics. Every rank writes
 * its results (checksums of received data: must not change under measurement)
 * and an EXPECT line: what it itself did, per MPI procedure, which the test
 * compares with the measured profile. With a directory argument each rank
 * writes to <dir>/rank<R>.out, so long lines of different ranks cannot mix in
 * the launcher's output. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAX_PROCS 64
static struct { const char* name; long visits, sent, recvd, nsent, nrecvd; } expect[MAX_PROCS];
static int nexpect;

static void did(const char* name, long sent, long recvd, long nsent, long nrecvd)
{
    int i = 0;
    while (i < nexpect && strcmp(expect[i].name, name) != 0)
        i++;
    if (i == nexpect)
        expect[nexpect++].name = name;
    expect[i].visits++;
    expect[i].sent += sent;
    expect[i].recvd += recvd;
    expect[i].nsent += nsent;
    expect[i].nrecvd += nrecvd;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    did("MPI_Init", 0, 0, 0, 0);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    did("MPI_Comm_rank", 0, 0, 0, 0);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    did("MPI_Comm_size", 0, 0, 0, 0);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long checksum = 0;

    /* 1. ring with a wildcard receive and MPI_STATUS_IGNORE: the true source is left */
    int out[100], in[100];
    for (int i = 0; i < 100; i++)
        out[i] = rank * 1000 + i;
    if (rank % 2 == 0) {
        MPI_Send(out, 100, MPI_INT, right, 1, MPI_COMM_WORLD);
        MPI_Recv(in, 100, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(in, 100, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, 100, MPI_INT, right, 1, MPI_COMM_WORLD);
    }
    did("MPI_Send", 400, 0, 1, 0);
    did("MPI_Recv", 0, 400, 0, 1);
    checksum += in[0] + in[99];

    /* 2. MPI_PROC_NULL: a visit, no message */
    MPI_Send(out, 10, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD);
    did("MPI_Send", 0, 0, 0, 0);
    MPI_Recv(in, 10, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    did("MPI_Recv", 0, 0, 0, 0);

    /* 3. non-blocking pair completed by MPI_Waitall with MPI_STATUSES_IGNORE */
    double dout[50], din[50];
    for (int i = 0; i < 50; i++)
        dout[i] = rank + i * 0.5;
    MPI_Request reqs[4];
    MPI_Irecv(din, 50, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &reqs[0]);
    did("MPI_Irecv", 0, 0, 0, 0);
    MPI_Isend(dout, 50, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &reqs[1]);
    did("MPI_Isend", 400, 0, 1, 0);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    did("MPI_Waitall", 0, 400, 0, 1);
    checksum += (long)din[49];

    /* 4. MPI_Testsome until both complete */
    MPI_Irecv(din, 25, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &reqs[0]);
    did("MPI_Irecv", 0, 0, 0, 0);
    MPI_Isend(dout, 25, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &reqs[1]);
    did("MPI_Isend", 200, 0, 1, 0);
    int done = 0, recv_seen = 0;
    while (done < 2) {
        int outcount, indices[2];
        MPI_Status st[2];
        MPI_Testsome(2, reqs, &outcount, indices, st);
        long r = 0, nr = 0;
        for (int i = 0; i < outcount; i++)
            if (indices[i] == 0) {
                r += 200;
                nr++;
                recv_seen++;
            }
        did("MPI_Testsome", 0, r, 0, nr);
        done += outcount == MPI_UNDEFINED ? 0 : outcount;
    }
    checksum += (long)din[24] + recv_seen;

    /* 5. MPI_Waitany over receives from both neighbours */
    int a[8], b[8];
    MPI_Request rr[2], sr[2];
    MPI_Irecv(a, 8, MPI_INT, left, 5, MPI_COMM_WORLD, &rr[0]);
    MPI_Irecv(b, 4, MPI_INT, right, 6, MPI_COMM_WORLD, &rr[1]);
    did("MPI_Irecv", 0, 0, 0, 0);
    did("MPI_Irecv", 0, 0, 0, 0);
    MPI_Isend(out, 8, MPI_INT, right, 5, MPI_COMM_WORLD, &sr[0]);
    MPI_Isend(out, 4, MPI_INT, left, 6, MPI_COMM_WORLD, &sr[1]);
    did("MPI_Isend", 32, 0, 1, 0);
    did("MPI_Isend", 16, 0, 1, 0);
    for (int k = 0; k < 2; k++) {
        int index;
        MPI_Status st;
        MPI_Waitany(2, rr, &index, &st);
        did("MPI_Waitany", 0, index == 0 ? 32 : 16, 0, 1);
        checksum += index == 0 ? a[7] : b[3];
    }
    MPI_Waitall(2, sr, MPI_STATUSES_IGNORE);
    did("MPI_Waitall", 0, 0, 0, 0);

    /* 6. persistent requests, started three times */
    MPI_Request ps, pr;
    MPI_Send_init(out, 16, MPI_INT, right, 7, MPI_COMM_WORLD, &ps);
    did("MPI_Send_init", 0, 0, 0, 0);
    MPI_Recv_init(in, 16, MPI_INT, left, 7, MPI_COMM_WORLD, &pr);
    did("MPI_Recv_init", 0, 0, 0, 0);
    for (int k = 0; k < 3; k++) {
        MPI_Start(&pr);
        did("MPI_Start", 0, 0, 0, 0);
        MPI_Start(&ps);
        did("MPI_Start", 64, 0, 1, 0);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        did("MPI_Wait", 0, 64, 0, 1);
        MPI_Wait(&ps, MPI_STATUS_IGNORE);
        did("MPI_Wait", 0, 0, 0, 0);
        checksum += in[15];
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    did("MPI_Request_free", 0, 0, 0, 0);
    did("MPI_Request_free", 0, 0, 0, 0);

    /* 7. send and receive in one call */
    MPI_Status st;
    MPI_Sendrecv(out, 10, MPI_INT, right, 8, in, 10, MPI_INT, left, 8, MPI_COMM_WORLD, &st);
    did("MPI_Sendrecv", 40, 40, 1, 1);
    checksum += in[9] + st.MPI_SOURCE;

    /* 8. collectives on the world and on a split communicator; their bytes by
     * Score-P's convention: every block of the collective's data movement is
     * sent by one rank and received by another, a rank's block to itself
     * included (a bcast root sends n to each of size ranks, every rank
     * receives n; an allreduce sends and receives n per rank) */
    double v[8] = {0};
    if (rank == 0)
        for (int i = 0; i < 8; i++)
            v[i] = i * 1.5;
    MPI_Bcast(v, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    did("MPI_Bcast", rank == 0 ? 64L * size : 0, 64, 0, 0);
    int s4[4] = {rank, 1, 2, 3}, r4[4];
    MPI_Allreduce(s4, r4, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    did("MPI_Allreduce", 16L * size, 16L * size, 0, 0);
    int g[2] = {rank, rank * 2}, all[2 * MAX_PROCS];
    MPI_Gather(g, 2, MPI_INT, all, 2, MPI_INT, size - 1, MPI_COMM_WORLD);
    did("MPI_Gather", 8, rank == size - 1 ? 8L * size : 0, 0, 0);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    did("MPI_Comm_split", 0, 0, 0, 0);
    int hrank, hsize, hs = rank, hr = 0;
    MPI_Comm_rank(half, &hrank);
    did("MPI_Comm_rank", 0, 0, 0, 0);
    MPI_Comm_size(half, &hsize);
    did("MPI_Comm_size", 0, 0, 0, 0);
    MPI_Reduce(&hs, &hr, 1, MPI_INT, MPI_MAX, 0, half);
    did("MPI_Reduce", 4, hrank == 0 ? 4L * hsize : 0, 0, 0);
    MPI_Comm_free(&half);
    did("MPI_Comm_free", 0, 0, 0, 0);
    checksum += (long)v[7] + r4[0] + (rank == size - 1 ? all[2 * size - 1] : 0) + hr;

    FILE* report = stdout;
    char path[4096];
    if (argc > 1) {
        snprintf(path, sizeof path, "%s/rank%d.out", argv[1], rank);
        report = fopen(path, "w");
        if (!report) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    fprintf(report, "RESULT rank %d checksum %ld\n", rank, checksum);
    fprintf(report, "EXPECT %d [", rank);
    for (int i = 0; i < nexpect; i++)
        fprintf(report, "%s{\"region\":\"%s\",\"visits\":%ld,\"bytes_sent\":%ld,\"bytes_received\":%ld,"
                "\"messages_sent\":%ld,\"messages_received\":%ld}", i ? "," : "", expect[i].name,
                expect[i].visits, expect[i].sent, expect[i].recvd, expect[i].nsent, expect[i].nrecvd);
    fprintf(report, "]\n");
    fclose(report);
    MPI_Finalize();
    return 0;
}
