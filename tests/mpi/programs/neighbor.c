/* Neighbourhood collectives on four kinds of virtual topology, for the test
 * of the adapter's byte counts (tests/mpi/test_neighbor_collectives.py):
 *   0  Cartesian 2 x 2, dimension 0 periodic, dimension 1 not
 *   1  Cartesian 4 x 1, dimension 0 not periodic, dimension 1 periodic (of
 *      size 1: the process is its own source and destination)
 *   2  graph (MPI_Graph_create), symmetric: ring 0-1-2-3-0 plus 0-2
 *   3  distributed graph (MPI_Dist_graph_create_adjacent), weighted, directed
 * On each, every neighbourhood collective, blocking and non-blocking, and,
 * where the library has them (MPI 4), their large-count forms. Block sizes
 * depend on the ranks of both ends (the test computes the same from the
 * topology); a block of an MPI_PROC_NULL neighbour is given NULLCOUNT
 * elements, which must move nothing and count nothing. Needs 4 processes.
 * Each rank prints `RESULT <rank> <checksum> <all>`: the checksum of
 * everything it received and of all ranks' checksums (MPI_Allreduce), the
 * same with and without the adapter. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 16
#define NULLCOUNT 5
#define BUFBYTES 4096

enum { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, KINDS };

typedef struct {
    int in, out;
    int src[MAXN], dst[MAXN];
} neighbours;

static int rank;
static unsigned long checksum = 1;

static neighbours neighbours_of(MPI_Comm comm)
{
    neighbours n;
    int topology, ndims, count, weighted, sw[MAXN], dw[MAXN];
    memset(&n, 0, sizeof n);
    MPI_Topo_test(comm, &topology);
    if (topology == MPI_CART) {
        MPI_Cartdim_get(comm, &ndims);
        for (int d = 0; d < ndims; d++)
            MPI_Cart_shift(comm, d, 1, &n.src[2 * d], &n.src[2 * d + 1]);
        n.in = n.out = 2 * ndims;
        memcpy(n.dst, n.src, sizeof n.src);
    } else if (topology == MPI_GRAPH) {
        MPI_Graph_neighbors_count(comm, rank, &count);
        MPI_Graph_neighbors(comm, rank, MAXN, n.src);
        n.in = n.out = count;
        memcpy(n.dst, n.src, sizeof n.src);
    } else {
        MPI_Dist_graph_neighbors_count(comm, &n.in, &n.out, &weighted);
        MPI_Dist_graph_neighbors(comm, MAXN, n.src, sw, MAXN, n.dst, dw);
    }
    return n;
}

/* Elements of the block from `from` to `to` in the v and w collectives. */
static int block(int from, int to)
{
    return from == MPI_PROC_NULL || to == MPI_PROC_NULL ? NULLCOUNT : 1 + from + to;
}

/* The type of the blocks `from` sends in the w collective. */
static MPI_Datatype wtype(int from)
{
    return from == MPI_PROC_NULL || from % 2 ? MPI_DOUBLE : MPI_INT;
}

static int type_size(MPI_Datatype type)
{
    int size;
    MPI_Type_size(type, &size);
    return size;
}

static void fill(unsigned char* buffer, int bytes)
{
    for (int i = 0; i < bytes; i++)
        buffer[i] = (unsigned char)(rank * 37 + i);
}

static void digest(const unsigned char* buffer, int bytes)
{
    for (int i = 0; i < bytes; i++)
        checksum = checksum * 1000003u + buffer[i];
}

static void collective(MPI_Comm comm, int kind, int nonblocking, int large)
{
    static unsigned char sendbuf[BUFBYTES], recvbuf[BUFBYTES];
    const neighbours n = neighbours_of(comm);
    int scounts[MAXN] = { 0 }, rcounts[MAXN] = { 0 }, sdispls[MAXN] = { 0 }, rdispls[MAXN] = { 0 };
    MPI_Aint sbytes[MAXN] = { 0 }, rbytes[MAXN] = { 0 };
    MPI_Datatype stypes[MAXN], rtypes[MAXN];
    int sends = 0, receives = 0;     /* elements (v) or bytes (w) */
    for (int j = 0; j < n.out; j++) {
        scounts[j] = block(rank, n.dst[j]);
        stypes[j] = wtype(n.dst[j] == MPI_PROC_NULL ? MPI_PROC_NULL : rank);
        sdispls[j] = sends;
        sbytes[j] = kind == ALLTOALLW ? (MPI_Aint)sends : 0;
        sends += kind == ALLTOALLW ? scounts[j] * type_size(stypes[j]) : scounts[j];
    }
    for (int i = 0; i < n.in; i++) {
        /* allgatherv: each process contributes 1 + its rank elements */
        rcounts[i] = kind != ALLGATHERV ? block(n.src[i], rank)
                   : n.src[i] == MPI_PROC_NULL ? NULLCOUNT : 1 + n.src[i];
        rtypes[i] = wtype(n.src[i]);
        rdispls[i] = receives;
        rbytes[i] = kind == ALLTOALLW ? (MPI_Aint)receives : 0;
        receives += kind == ALLTOALLW ? rcounts[i] * type_size(rtypes[i]) : rcounts[i];
    }
    fill(sendbuf, BUFBYTES);
    memset(recvbuf, 0xee, BUFBYTES);
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Request* r = nonblocking ? &request : NULL;
    const int gathered = 1 + rank;   /* allgatherv: what this process contributes */
#if MPI_VERSION >= 4
    MPI_Count scounts_c[MAXN], rcounts_c[MAXN];
    MPI_Aint sdispls_c[MAXN], rdispls_c[MAXN];
    for (int k = 0; k < MAXN; k++) {
        scounts_c[k] = scounts[k];
        rcounts_c[k] = rcounts[k];
        sdispls_c[k] = kind == ALLTOALLW ? sbytes[k] : sdispls[k];
        rdispls_c[k] = kind == ALLTOALLW ? rbytes[k] : rdispls[k];
    }
#define LARGE(call_c, call) (large ? (call_c) : (call))
#else
#define LARGE(call_c, call) (call)
    (void)large;
#endif
    switch (kind) {
    case ALLGATHER:
        if (r) LARGE(MPI_Ineighbor_allgather_c(sendbuf, 3, MPI_INT, recvbuf, 3, MPI_INT, comm, r),
                     MPI_Ineighbor_allgather(sendbuf, 3, MPI_INT, recvbuf, 3, MPI_INT, comm, r));
        else LARGE(MPI_Neighbor_allgather_c(sendbuf, 3, MPI_INT, recvbuf, 3, MPI_INT, comm),
                   MPI_Neighbor_allgather(sendbuf, 3, MPI_INT, recvbuf, 3, MPI_INT, comm));
        receives = 3 * n.in * 4;
        break;
    case ALLGATHERV:
        if (r) LARGE(MPI_Ineighbor_allgatherv_c(sendbuf, gathered, MPI_INT, recvbuf, rcounts_c, rdispls_c,
                                                MPI_INT, comm, r),
                     MPI_Ineighbor_allgatherv(sendbuf, gathered, MPI_INT, recvbuf, rcounts, rdispls, MPI_INT,
                                              comm, r));
        else LARGE(MPI_Neighbor_allgatherv_c(sendbuf, gathered, MPI_INT, recvbuf, rcounts_c, rdispls_c,
                                             MPI_INT, comm),
                   MPI_Neighbor_allgatherv(sendbuf, gathered, MPI_INT, recvbuf, rcounts, rdispls, MPI_INT, comm));
        receives *= 4;
        break;
    case ALLTOALL:
        if (r) LARGE(MPI_Ineighbor_alltoall_c(sendbuf, 2, MPI_DOUBLE, recvbuf, 2, MPI_DOUBLE, comm, r),
                     MPI_Ineighbor_alltoall(sendbuf, 2, MPI_DOUBLE, recvbuf, 2, MPI_DOUBLE, comm, r));
        else LARGE(MPI_Neighbor_alltoall_c(sendbuf, 2, MPI_DOUBLE, recvbuf, 2, MPI_DOUBLE, comm),
                   MPI_Neighbor_alltoall(sendbuf, 2, MPI_DOUBLE, recvbuf, 2, MPI_DOUBLE, comm));
        receives = 2 * n.in * 8;
        break;
    case ALLTOALLV:
        if (r) LARGE(MPI_Ineighbor_alltoallv_c(sendbuf, scounts_c, sdispls_c, MPI_INT, recvbuf, rcounts_c,
                                               rdispls_c, MPI_INT, comm, r),
                     MPI_Ineighbor_alltoallv(sendbuf, scounts, sdispls, MPI_INT, recvbuf, rcounts, rdispls,
                                             MPI_INT, comm, r));
        else LARGE(MPI_Neighbor_alltoallv_c(sendbuf, scounts_c, sdispls_c, MPI_INT, recvbuf, rcounts_c,
                                            rdispls_c, MPI_INT, comm),
                   MPI_Neighbor_alltoallv(sendbuf, scounts, sdispls, MPI_INT, recvbuf, rcounts, rdispls,
                                          MPI_INT, comm));
        receives *= 4;
        break;
    case ALLTOALLW:
        if (r) LARGE(MPI_Ineighbor_alltoallw_c(sendbuf, scounts_c, sdispls_c, stypes, recvbuf, rcounts_c,
                                               rdispls_c, rtypes, comm, r),
                     MPI_Ineighbor_alltoallw(sendbuf, scounts, sbytes, stypes, recvbuf, rcounts, rbytes,
                                             rtypes, comm, r));
        else LARGE(MPI_Neighbor_alltoallw_c(sendbuf, scounts_c, sdispls_c, stypes, recvbuf, rcounts_c,
                                            rdispls_c, rtypes, comm),
                   MPI_Neighbor_alltoallw(sendbuf, scounts, sbytes, stypes, recvbuf, rcounts, rbytes, rtypes,
                                          comm));
        break;
    }
    if (r)
        MPI_Wait(r, MPI_STATUS_IGNORE);
    digest(recvbuf, receives);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "neighbor: needs 4 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm comms[4];
    int dims_a[2] = { 2, 2 }, periods_a[2] = { 1, 0 };
    int dims_b[2] = { 4, 1 }, periods_b[2] = { 0, 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims_a, periods_a, 0, &comms[0]);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims_b, periods_b, 0, &comms[1]);
    /* neighbours 0: 1 3 2, 1: 0 2, 2: 1 3 0, 3: 2 0 */
    int index[4] = { 3, 5, 8, 10 }, edges[10] = { 1, 3, 2, 0, 2, 1, 3, 0, 2, 0 };
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &comms[2]);
    /* edges 0->1 0->2 1->2 1->3 2->0 2->3 3->0 3->1, each rank lists its own */
    static const int sources[4][2] = { { 2, 3 }, { 0, 3 }, { 0, 1 }, { 1, 2 } };
    static const int destinations[4][2] = { { 1, 2 }, { 2, 3 }, { 0, 3 }, { 0, 1 } };
    int weights[2] = { 1, 2 };
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources[rank], weights, 2, destinations[rank], weights,
                                   MPI_INFO_NULL, 0, &comms[3]);
    int large_count = 0;
#if MPI_VERSION >= 4
    large_count = 1;
#endif
    /* between the neighbourhood collectives, collectives that OTF2 knows */
    for (int c = 0; c < 4; c++) {
        for (int kind = 0; kind < KINDS; kind++)
            for (int nonblocking = 0; nonblocking < 2; nonblocking++)
                for (int large = 0; large <= large_count; large++)
                    collective(comms[c], kind, nonblocking, large);
        MPI_Barrier(comms[c]);
    }
    unsigned long all = 0;
    MPI_Allreduce(&checksum, &all, 1, MPI_UNSIGNED_LONG, MPI_BXOR, MPI_COMM_WORLD);
    for (int c = 0; c < 4; c++)
        MPI_Comm_free(&comms[c]);
    printf("LARGE_COUNT %d\n", large_count);
    printf("RESULT %d %lu %lu\n", rank, checksum, all);
    MPI_Finalize();
    return 0;
}
