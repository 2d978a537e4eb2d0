/* Receive envelopes of non-blocking receives: MPI_Irecv (wildcards, messages
 * shorter than the buffer) and, with MPI 4.0, MPI_Isendrecv(_c) and
 * MPI_Isendrecv_replace in every shape (both directions, to or from
 * MPI_PROC_NULL, wildcards, completed by Wait, Waitall, Test, with the
 * user's status or MPI_STATUS_IGNORE). Run on 3 ranks in a ring.
 *
 * Every rank writes to <dir>/rank<R>.out:
 *   RESULT  a checksum of the received data (must not change under measurement)
 *   STATUS <rank> <kind> <0|1>  whether the library's status of that kind of
 *           receive named the message (MPICH 4.0.2: not for isendrecv, replace)
 *   RECV <rank> <kind> <tag> <world source> <bytes> <wildcard 0|1> <capacity>
 *           per completed receive request, in completion order: what arrived
 *   kinds: irecv, isendrecv, replace, and *_nosend (to MPI_PROC_NULL)
 *   EXPECT  what the rank did per MPI procedure (the profile must show it) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MAX_PROCS 64
static struct { const char* name; long visits, sent, recvd, nsent, nrecvd; } expect[MAX_PROCS];
static int nexpect;
static char recv_lines[64][96];
static int nrecv;
static const char* const kinds[] = { "irecv", "isendrecv", "replace", "isendrecv_nosend", "replace_nosend" };
enum { IRECV, ISENDRECV, REPLACE, ISENDRECV_NOSEND, REPLACE_NOSEND, KINDS };
static int status_right[KINDS] = { -1, -1, -1, -1, -1 };

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

static void received(int kind, int tag, int source, long bytes, int wildcard, long capacity)
{
    snprintf(recv_lines[nrecv++], sizeof recv_lines[0], "%s %d %d %ld %d %ld", kinds[kind], tag, source, bytes,
             wildcard, capacity);
}

/* Does the status name the message (source, tag, bytes)? */
static void check(int kind, const MPI_Status* status, int source, int tag, int bytes)
{
    int count = -1;
    MPI_Get_count(status, MPI_BYTE, &count);
    status_right[kind] = status->MPI_SOURCE == source && status->MPI_TAG == tag && count == bytes;
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
    int out[64], in[64];
    double dout[8], din[8];
    for (int i = 0; i < 64; i++)
        out[i] = rank * 1000 + i;
    for (int i = 0; i < 8; i++)
        dout[i] = rank + i * 0.5;
    MPI_Request req[2];
    MPI_Status status;

#if MPI_VERSION >= 4
    /* 1. both directions, completed by MPI_Wait with the user's status */
    memset(&status, 0, sizeof status);
    MPI_Isendrecv(out, 8, MPI_INT, right, 10, in, 8, MPI_INT, left, 10, MPI_COMM_WORLD, &req[0]);
    did("MPI_Isendrecv", 32, 0, 1, 0);
    MPI_Wait(&req[0], &status);
    did("MPI_Wait", 0, 32, 0, 1);
    received(ISENDRECV, 10, left, 32, 0, 32);
    check(ISENDRECV, &status, left, 10, 32);
    checksum += in[0] + in[7];

    /* 2. two at once, MPI_Waitall with MPI_STATUSES_IGNORE */
    MPI_Isendrecv(dout, 5, MPI_DOUBLE, right, 11, din, 5, MPI_DOUBLE, left, 11, MPI_COMM_WORLD, &req[0]);
    did("MPI_Isendrecv", 40, 0, 1, 0);
    MPI_Isendrecv(out, 3, MPI_INT, left, 12, in, 3, MPI_INT, right, 12, MPI_COMM_WORLD, &req[1]);
    did("MPI_Isendrecv", 12, 0, 1, 0);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    did("MPI_Waitall", 0, 52, 0, 2);
    received(ISENDRECV, 11, left, 40, 0, 40);
    received(ISENDRECV, 12, right, 12, 0, 12);
    checksum += (long)din[4] + in[2];

    /* 3. completed by an MPI_Test loop */
    MPI_Isendrecv(out, 4, MPI_INT, right, 13, in, 4, MPI_INT, left, 13, MPI_COMM_WORLD, &req[0]);
    did("MPI_Isendrecv", 16, 0, 1, 0);
    for (int flag = 0; !flag;) {
        MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
        did("MPI_Test", 0, flag ? 16 : 0, 0, flag ? 1 : 0);
    }
    received(ISENDRECV, 13, left, 16, 0, 16);
    checksum += in[3];

    /* 4. MPI_Isendrecv_replace */
    memcpy(in, out, sizeof in);
    memset(&status, 0, sizeof status);
    MPI_Isendrecv_replace(in, 6, MPI_INT, right, 14, left, 14, MPI_COMM_WORLD, &req[0]);
    did("MPI_Isendrecv_replace", 24, 0, 1, 0);
    MPI_Wait(&req[0], &status);
    did("MPI_Wait", 0, 24, 0, 1);
    received(REPLACE, 14, left, 24, 0, 24);
    check(REPLACE, &status, left, 14, 24);
    checksum += in[5];

    /* 5. to MPI_PROC_NULL: receives only, a message shorter than the buffer */
    MPI_Isendrecv(out, 8, MPI_INT, MPI_PROC_NULL, 15, in, 16, MPI_INT, left, 15, MPI_COMM_WORLD, &req[0]);
    did("MPI_Isendrecv", 0, 0, 0, 0);
    MPI_Send(out, 6, MPI_INT, right, 15, MPI_COMM_WORLD);
    did("MPI_Send", 24, 0, 1, 0);
    memset(&status, 0, sizeof status);
    MPI_Wait(&req[0], &status);
    did("MPI_Wait", 0, 24, 0, 1);
    received(ISENDRECV_NOSEND, 15, left, 24, 0, 64);
    check(ISENDRECV_NOSEND, &status, left, 15, 24);
    checksum += in[5];

    /* 6. MPI_Isendrecv_replace to MPI_PROC_NULL */
    MPI_Isendrecv_replace(in, 4, MPI_INT, MPI_PROC_NULL, 16, left, 16, MPI_COMM_WORLD, &req[0]);
    did("MPI_Isendrecv_replace", 0, 0, 0, 0);
    MPI_Send(out, 4, MPI_INT, right, 16, MPI_COMM_WORLD);
    did("MPI_Send", 16, 0, 1, 0);
    memset(&status, 0, sizeof status);
    MPI_Wait(&req[0], &status);
    did("MPI_Wait", 0, 16, 0, 1);
    received(REPLACE_NOSEND, 16, left, 16, 0, 16);
    check(REPLACE_NOSEND, &status, left, 16, 16);
    checksum += in[3];

    /* 7. from MPI_PROC_NULL: sends only; the wait completes the send */
    MPI_Isendrecv(out, 2, MPI_INT, right, 17, in, 2, MPI_INT, MPI_PROC_NULL, 17, MPI_COMM_WORLD, &req[0]);
    did("MPI_Isendrecv", 8, 0, 1, 0);
    MPI_Recv(in, 2, MPI_INT, left, 17, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    did("MPI_Recv", 0, 8, 0, 1);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    did("MPI_Wait", 0, 0, 0, 0);
    checksum += in[1];
#endif

    /* 8. MPI_Irecv with wildcards, a message shorter than the buffer */
    MPI_Irecv(in, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
    did("MPI_Irecv", 0, 0, 0, 0);
    MPI_Send(out, 7, MPI_INT, right, 18, MPI_COMM_WORLD);
    did("MPI_Send", 28, 0, 1, 0);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    did("MPI_Wait", 0, 28, 0, 1);
    received(IRECV, 18, left, 28, 1, 256);
    checksum += in[6];

    /* 9. MPI_Irecv, a message shorter than the buffer, the user's status */
    MPI_Irecv(in, 32, MPI_INT, left, 19, MPI_COMM_WORLD, &req[0]);
    did("MPI_Irecv", 0, 0, 0, 0);
    MPI_Send(out, 9, MPI_INT, right, 19, MPI_COMM_WORLD);
    did("MPI_Send", 36, 0, 1, 0);
    memset(&status, 0, sizeof status);
    MPI_Wait(&req[0], &status);
    did("MPI_Wait", 0, 36, 0, 1);
    received(IRECV, 19, left, 36, 0, 128);
    check(IRECV, &status, left, 19, 36);
    checksum += in[8];

#if MPI_VERSION >= 4
    /* 10. large counts */
    MPI_Isendrecv_c(out, (MPI_Count)3, MPI_INT, right, 21, in, (MPI_Count)3, MPI_INT, left, 21, MPI_COMM_WORLD,
                    &req[0]);
    did("MPI_Isendrecv_c", 12, 0, 1, 0);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    did("MPI_Wait", 0, 12, 0, 1);
    received(ISENDRECV, 21, left, 12, 0, 12);
    checksum += in[2];

    /* 11. a message shorter than the buffer: exact where the library's status
     * is right; otherwise the posted capacity is recorded */
    MPI_Isendrecv(out, 2, MPI_INT, right, 22, in, 6, MPI_INT, left, 22, MPI_COMM_WORLD, &req[0]);
    did("MPI_Isendrecv", 8, 0, 1, 0);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    did("MPI_Wait", 0, status_right[ISENDRECV] ? 8 : 24, 0, 1);
    received(ISENDRECV, 22, left, 8, 0, 24);
    checksum += in[1];

    /* 12. wildcards (last: only the left neighbour's message can match) */
    MPI_Isendrecv(out, 10, MPI_INT, right, 20, in, 10, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                  &req[0]);
    did("MPI_Isendrecv", 40, 0, 1, 0);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    did("MPI_Wait", 0, 40, 0, 1);
    received(ISENDRECV, 20, left, 40, 1, 40);
    checksum += in[9];
#endif

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
    for (int kind = 0; kind < KINDS; kind++)
        if (status_right[kind] >= 0)
            fprintf(report, "STATUS %d %s %d\n", rank, kinds[kind], status_right[kind]);
    for (int i = 0; i < nrecv; i++)
        fprintf(report, "RECV %d %s\n", rank, recv_lines[i]);
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
