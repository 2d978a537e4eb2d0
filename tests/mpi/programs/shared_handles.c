/* Several small non-blocking sends outstanding at once, mixed with receives,
 * a large (rendezvous) send and a persistent send/receive pair, completed by
 * every MPI_Wait / MPI_Test variant. MPI libraries give small sends that
 * complete at once one shared request handle (MPICH's builtin "lightweight"
 * request, Open MPI's ompi_request_empty), so several outstanding requests
 * have the same handle. Run on 2 or more ranks in a ring (plus one phase of
 * messages to self).
 *
 * Every rank writes to <dir>/rank<R>.out:
 *   RESULT <rank> <checksum>   of all data received (unchanged by measurement)
 *   RECV <rank> <world source> <tag> <bytes>   per completed receive, by phase
 *            and position (what arrived, from the status, or for the phase
 *            with MPI_STATUSES_IGNORE what was sent)
 *   COUNT <rank> <isends> <irecvs> <freed>     requests started: non-blocking
 *            and persistent sends, receives; sends released by MPI_Request_free
 *   SHARED <rank> <phase> <n>  the most small-send requests of the phase that
 *            had one handle value while outstanding (depends on the library) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 8        /* small sends (one int) outstanding at once per phase */
#define LARGE 65536    /* ints in the large message: not complete at once */
#define MAXREQ (2 * SMALL + 4)

enum method { WAITALL, WAITALL_IGNORE, WAIT_EACH, WAITANY, WAITSOME, TEST_EACH, TESTALL, TESTANY, TESTSOME,
              FREE_ONE, SELF, METHODS };
static const char* const method_names[] = {"waitall", "waitall-ignore", "wait-each", "waitany", "waitsome",
                                           "test-each", "testall", "testany", "testsome", "free-one", "self"};

static int rank, size;
static FILE* out;
static long checksum;
static int isends, irecvs, freed;
static int small_out[SMALL], small_in[SMALL];
static int* large_out;
static int* large_in;
static int persistent_out, persistent_in;
static MPI_Request persistent_send, persistent_recv;

/* The most requests among r[0..n) with the same handle value. */
static int most_shared(const MPI_Request* r, int n)
{
    int most = 0;
    for (int i = 0; i < n; i++) {
        int same = 0;
        for (int j = 0; j < n; j++) same += memcmp(&r[i], &r[j], sizeof r[i]) == 0;
        if (same > most) most = same;
    }
    return most;
}

static void complete(enum method m, int n, MPI_Request* r, MPI_Status* st)
{
    int done = 0, flag = 0, index, outcount, indices[MAXREQ];
    MPI_Status one[MAXREQ];
    switch (m) {
    case WAITALL:
    case FREE_ONE:
    case SELF:
        MPI_Waitall(n, r, st);
        break;
    case WAITALL_IGNORE:
        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
        break;
    case WAIT_EACH: /* last posted first: not the order of creation */
        for (int i = n - 1; i >= 0; i--) MPI_Wait(&r[i], i % 3 == 0 ? MPI_STATUS_IGNORE : &st[i]);
        break;
    case WAITANY:
        for (;;) {
            MPI_Waitany(n, r, &index, &one[0]);
            if (index == MPI_UNDEFINED) break;
            st[index] = one[0];
        }
        break;
    case WAITSOME:
        for (;;) {
            MPI_Waitsome(n, r, &outcount, indices, one);
            if (outcount == MPI_UNDEFINED) break;
            for (int k = 0; k < outcount; k++) st[indices[k]] = one[k];
        }
        break;
    case TEST_EACH: { /* a completed persistent request stays (inactive): test each until it completes once */
        int finished[MAXREQ] = {0};
        while (done < n)
            for (int i = 0; i < n; i++) {
                if (finished[i]) continue;
                MPI_Test(&r[i], &flag, &one[0]);
                if (flag) {
                    st[i] = one[0];
                    finished[i] = 1;
                    done++;
                }
            }
        break;
    }
    case TESTALL:
        while (!flag) MPI_Testall(n, r, &flag, st);
        break;
    case TESTANY:
        for (;;) {
            MPI_Testany(n, r, &index, &flag, &one[0]);
            if (flag && index == MPI_UNDEFINED) break;
            if (flag) st[index] = one[0];
        }
        break;
    case TESTSOME:
        for (;;) {
            MPI_Testsome(n, r, &outcount, indices, one);
            if (outcount == MPI_UNDEFINED) break;
            for (int k = 0; k < outcount; k++) st[indices[k]] = one[k];
        }
        break;
    default:
        break;
    }
}

/* A receive at position i completed: print what arrived, add it to the checksum. */
static void received(const MPI_Status* st, int from, int tag, int ints, const int* data, int ignored)
{
    int source = from, got_tag = tag, bytes = ints * (int)sizeof(int);
    if (!ignored) {
        source = st->MPI_SOURCE;
        got_tag = st->MPI_TAG;
        MPI_Get_count(st, MPI_BYTE, &bytes);
    }
    fprintf(out, "RECV %d %d %d %d\n", rank, source, got_tag, bytes);
    for (int k = 0; k < ints; k++) checksum = (checksum * 31 + data[k] + k) % 1000000007L;
}

static void phase(enum method m)
{
    int self = m == SELF;
    int right = self ? rank : (rank + 1) % size, left = self ? rank : (rank + size - 1) % size;
    int late = m % 2;  /* odd methods post their receives after the sends have gone out */
    int base = 100 * (m + 1);
    MPI_Request r[MAXREQ], small[SMALL];
    MPI_Status st[MAXREQ];
    int n = 2 * SMALL + 2;
    for (int i = 0; i < SMALL; i++) small_out[i] = rank * 1000 + m * 10 + i;
    for (int k = 0; k < LARGE; k++) large_out[k] = rank + k + m;
    persistent_out = rank * 7 + m;
    /* positions: 2i small send i, 2i+1 small receive i, then large send,
     * large receive, (not self) persistent send and receive */
    if (!late)
        for (int i = 0; i < SMALL; i++) MPI_Irecv(&small_in[i], 1, MPI_INT, left, base + i, MPI_COMM_WORLD, &r[2 * i + 1]);
    if (!late) MPI_Irecv(large_in, LARGE, MPI_INT, left, base + 50, MPI_COMM_WORLD, &r[2 * SMALL + 1]);
    for (int i = 0; i < SMALL; i++) {
        MPI_Isend(&small_out[i], 1, MPI_INT, right, base + i, MPI_COMM_WORLD, &r[2 * i]);
        small[i] = r[2 * i];
    }
    MPI_Isend(large_out, LARGE, MPI_INT, right, base + 50, MPI_COMM_WORLD, &r[2 * SMALL]);
    isends += SMALL + 1;
    irecvs += SMALL + 1;
    fprintf(out, "SHARED %d %s %d\n", rank, method_names[m], most_shared(small, SMALL));
    if (!self) {
        MPI_Start(&persistent_recv);
        MPI_Start(&persistent_send);
        r[n++] = persistent_send;
        r[n++] = persistent_recv;
        isends++;
        irecvs++;
    }
    if (late) {
        if (!self) MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < SMALL; i++) MPI_Irecv(&small_in[i], 1, MPI_INT, left, base + i, MPI_COMM_WORLD, &r[2 * i + 1]);
        MPI_Irecv(large_in, LARGE, MPI_INT, left, base + 50, MPI_COMM_WORLD, &r[2 * SMALL + 1]);
    }
    if (m == FREE_ONE) {  /* a small send released without completion */
        MPI_Request_free(&r[2]);
        freed++;
    }
    MPI_Request keep_send = persistent_send, keep_recv = persistent_recv;
    complete(m, n, r, st);
    persistent_send = keep_send;
    persistent_recv = keep_recv;
    int ignored = m == WAITALL_IGNORE;
    for (int i = 0; i < SMALL; i++)
        received(&st[2 * i + 1], left, base + i, 1, &small_in[i], ignored || (m == WAIT_EACH && (2 * i + 1) % 3 == 0));
    received(&st[2 * SMALL + 1], left, base + 50, LARGE, large_in, ignored || (m == WAIT_EACH && (2 * SMALL + 1) % 3 == 0));
    if (!self) received(&st[2 * SMALL + 3], left, 99, 1, &persistent_in, ignored || (m == WAIT_EACH && (2 * SMALL + 3) % 3 == 0));
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: shared_handles <output dir>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.out", argv[1], rank);
    out = fopen(path, "w");
    large_out = malloc(LARGE * sizeof(int));
    large_in = malloc(LARGE * sizeof(int));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Send_init(&persistent_out, 1, MPI_INT, right, 99, MPI_COMM_WORLD, &persistent_send);
    MPI_Recv_init(&persistent_in, 1, MPI_INT, left, 99, MPI_COMM_WORLD, &persistent_recv);
    for (int m = 0; m < METHODS; m++) phase((enum method)m);
    MPI_Request_free(&persistent_send);
    MPI_Request_free(&persistent_recv);
    fprintf(out, "COUNT %d %d %d %d\n", rank, isends, irecvs, freed);
    fprintf(out, "RESULT %d %ld\n", rank, checksum);
    fclose(out);
    free(large_out);
    free(large_in);
    MPI_Finalize();
    return 0;
}
