/*
 * The bytes a collective call moves for the calling process: the one rule
 * that the C, mpif.h / use mpi and use mpi_f08 wrappers all apply
 * (docs/MPI_ADAPTER.md, "Collectives", has the table and the reasons).
 *
 * The convention is Score-P's, so that the same program measured by both
 * tools shows the same bytes per call path: every block that the naive
 * algorithm of the collective moves from one process to another counts as
 * sent by the one and received by the other, a process's block to itself
 * included; with MPI_IN_PLACE that self-transfer is not counted. An
 * MPI_Allreduce of n bytes on p processes is thus n x p sent and received on
 * every rank, and over all ranks of a job with only collectives the bytes
 * sent equal the bytes received.
 *
 * Only local PMPI queries (sizes, ranks, topology), no communication.
 */
#include <stdio.h>
#include <stdlib.h>

#include "scorep_wrapgen/mpi_layer.h"

/* The size of one element of type: predefined types from the per-thread
 * cache (type_size.c), so that the wrappers ask MPI only for derived types;
 * 0 for MPI_DATATYPE_NULL or a type without size (an erroneous call must not
 * make up bytes). */
static uint64_t element_size(MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return 0;
    int named;
    return scorep_mpi_type_size(type, &named);
}

static uint64_t times(MPI_Count count, uint64_t size)
{
    return count > 0 ? (uint64_t)count * size : 0;
}

/* count x the size of type; 0 for a non-positive count */
static uint64_t bytes(MPI_Count count, MPI_Datatype type)
{
    return count > 0 ? (uint64_t)count * element_size(type) : 0;
}

static MPI_Count count_at(const void* counts, int large, int i)
{
    if (!counts)
        return 0;
    return large ? ((const MPI_Count*)counts)[i] : ((const int*)counts)[i];
}

static MPI_Datatype type_at(const void* types, int fortran, int i)
{
    if (!types)
        return MPI_DATATYPE_NULL;
    return fortran ? MPI_Type_f2c(((const MPI_Fint*)types)[i]) : ((const MPI_Datatype*)types)[i];
}

/* Blocks 0..n-1 of counts (v kinds: one type, its size asked once; w kinds:
 * types[i] if types). */
static uint64_t sum_blocks(const scorep_mpi_coll_call* c, const void* counts, MPI_Datatype type,
                           const void* types, int n)
{
    uint64_t sum = 0;
    if (types) {
        for (int i = 0; i < n; i++)
            sum += bytes(count_at(counts, c->large, i), type_at(types, c->fortran_types, i));
    } else {
        const uint64_t size = element_size(type);
        for (int i = 0; i < n; i++)
            sum += times(count_at(counts, c->large, i), size);
    }
    return sum;
}

static uint64_t block_at(const scorep_mpi_coll_call* c, const void* counts, MPI_Datatype type,
                         const void* types, int i)
{
    return bytes(count_at(counts, c->large, i), types ? type_at(types, c->fortran_types, i) : type);
}

static uint64_t minus(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* The blocks to (or from) the neighbours that are not MPI_PROC_NULL:
 * counts[i] of types[i], or of type (its size asked once) if types is NULL. */
static uint64_t neighbor_blocks(const scorep_mpi_coll_call* c, const int* ranks, int degree,
                                const void* counts, MPI_Datatype type, const void* types)
{
    uint64_t sum = 0;
    const uint64_t size = types ? 0 : element_size(type);
    for (int i = 0; i < degree; i++) {
        if (ranks[i] == MPI_PROC_NULL)
            continue;
        sum += types ? bytes(count_at(counts, c->large, i), type_at(types, c->fortran_types, i))
                     : times(count_at(counts, c->large, i), size);
    }
    return sum;
}

/* The neighbourhood collectives: one block per neighbour of the virtual
 * topology, none to or from MPI_PROC_NULL. */
static scorep_mpi_coll_bytes neighbor_bytes(const scorep_mpi_coll_call* c)
{
    const scorep_mpi_neighbors n = scorep_mpi_neighbors_of(c->comm);
    scorep_mpi_coll_bytes b = { 0, 0, SCOREP_NO_ROOT };
    switch (c->kind) {
    case SCOREP_COLL_NEIGHBOR_ALLGATHER:
    case SCOREP_COLL_NEIGHBOR_ALLTOALL:
        b.sent = (uint64_t)n.real_out * bytes(c->sendcount, c->sendtype);
        b.received = (uint64_t)n.real_in * bytes(c->recvcount, c->recvtype);
        break;
    case SCOREP_COLL_NEIGHBOR_ALLGATHERV:
        b.sent = (uint64_t)n.real_out * bytes(c->sendcount, c->sendtype);
        b.received = neighbor_blocks(c, n.sources, n.indegree, c->recvcounts, c->recvtype, NULL);
        break;
    case SCOREP_COLL_NEIGHBOR_ALLTOALLV:
    case SCOREP_COLL_NEIGHBOR_ALLTOALLW:
        b.sent = neighbor_blocks(c, n.destinations, n.outdegree, c->sendcounts, c->sendtype, c->sendtypes);
        b.received = neighbor_blocks(c, n.sources, n.indegree, c->recvcounts, c->recvtype, c->recvtypes);
        break;
    default:
        break;
    }
    return b;
}

/* The calling process's rank in (the local group of) comm: asked only by the
 * rules that read it, which saves the call for the most frequent kinds
 * (allreduce, alltoall, allgather). */
static int rank_in(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

scorep_mpi_coll_bytes scorep_mpi_collective_bytes(const scorep_mpi_coll_call* c)
{
    scorep_mpi_coll_bytes b = { 0, 0, SCOREP_NO_ROOT };
    if (c->kind >= SCOREP_COLL_NEIGHBOR_ALLGATHER)
        return neighbor_bytes(c);
    if (c->kind == SCOREP_COLL_BARRIER || c->comm == MPI_COMM_NULL)
        return b;

    int inter = 0, size = 1, remote = 0;
    PMPI_Comm_test_inter(c->comm, &inter);
    PMPI_Comm_size(c->comm, &size);
    if (inter)
        PMPI_Comm_remote_size(c->comm, &remote);

    /* Rooted kinds: on an intracommunicator the root is a rank of it; on an
     * intercommunicator the root's group passes MPI_ROOT (the root) and
     * MPI_PROC_NULL (the others, which move nothing), the other group the
     * root's rank in the remote group. */
    const int rooted = c->kind == SCOREP_COLL_BCAST || c->kind == SCOREP_COLL_GATHER
                       || c->kind == SCOREP_COLL_GATHERV || c->kind == SCOREP_COLL_SCATTER
                       || c->kind == SCOREP_COLL_SCATTERV || c->kind == SCOREP_COLL_REDUCE;
    const int is_root = rooted && (inter ? c->root == MPI_ROOT : c->root == rank_in(c->comm));
    const int idle = rooted && inter && c->root == MPI_PROC_NULL;
    if (rooted)
        b.root = inter ? (c->root >= 0 ? c->root : SCOREP_NO_ROOT) : c->root;
    if (idle)
        return b;

    /* the processes a block goes to (or comes from) in the all-to-all kinds:
     * the whole communicator, or the remote group */
    const int peers = inter ? remote : size;
    /* in place: the process's own block does not move */
    const int in_place = c->send_in_place;

    switch (c->kind) {
    case SCOREP_COLL_BCAST: {
        const uint64_t n = bytes(c->sendcount, c->sendtype);
        if (inter) {
            if (is_root)
                b.sent = (uint64_t)remote * n;
            else
                b.received = n;
        } else {
            if (is_root)
                b.sent = (uint64_t)size * n;
            b.received = n;
        }
        break;
    }
    case SCOREP_COLL_REDUCE: {
        const uint64_t n = bytes(c->sendcount, c->sendtype);
        if (inter) {
            if (is_root)
                b.received = (uint64_t)remote * n;
            else
                b.sent = n;
        } else {
            if (!in_place)
                b.sent = n;
            if (is_root)
                b.received = (uint64_t)(size - (in_place ? 1 : 0)) * n;
        }
        break;
    }
    /* gather(v), scatter(v): with MPI_IN_PLACE at an intracommunicator's root
     * the block that stays is the root's own, and its rank is c->root */
    case SCOREP_COLL_GATHER:
    case SCOREP_COLL_GATHERV:
        if (inter ? !is_root : !in_place)
            b.sent = bytes(c->sendcount, c->sendtype);
        if (is_root) {
            if (c->kind == SCOREP_COLL_GATHER)
                b.received = (uint64_t)(inter ? remote : size - (in_place ? 1 : 0))
                             * bytes(c->recvcount, c->recvtype);
            else
                b.received = minus(sum_blocks(c, c->recvcounts, c->recvtype, NULL, peers),
                                   !inter && in_place
                                       ? block_at(c, c->recvcounts, c->recvtype, NULL, c->root) : 0);
        }
        break;
    case SCOREP_COLL_SCATTER:
    case SCOREP_COLL_SCATTERV: {
        const int recv_in_place = !inter && c->recv_in_place;
        if (is_root) {
            if (c->kind == SCOREP_COLL_SCATTER)
                b.sent = (uint64_t)(inter ? remote : size - (recv_in_place ? 1 : 0))
                         * bytes(c->sendcount, c->sendtype);
            else
                b.sent = minus(sum_blocks(c, c->sendcounts, c->sendtype, NULL, peers),
                               recv_in_place ? block_at(c, c->sendcounts, c->sendtype, NULL, c->root) : 0);
        }
        if (inter ? !is_root : !recv_in_place)
            b.received = bytes(c->recvcount, c->recvtype);
        break;
    }
    case SCOREP_COLL_ALLREDUCE:
        b.sent = b.received = (uint64_t)(inter ? remote : size - (in_place ? 1 : 0))
                              * bytes(c->sendcount, c->sendtype);
        break;
    case SCOREP_COLL_ALLGATHER:
        if (inter) {
            b.sent = (uint64_t)remote * bytes(c->sendcount, c->sendtype);
            b.received = (uint64_t)remote * bytes(c->recvcount, c->recvtype);
        } else if (in_place) {
            b.sent = b.received = (uint64_t)(size - 1) * bytes(c->recvcount, c->recvtype);
        } else {
            b.sent = (uint64_t)size * bytes(c->sendcount, c->sendtype);
            b.received = (uint64_t)size * bytes(c->recvcount, c->recvtype);
        }
        break;
    case SCOREP_COLL_ALLGATHERV:
        b.received = sum_blocks(c, c->recvcounts, c->recvtype, NULL, peers);
        if (inter) {
            b.sent = (uint64_t)remote * bytes(c->sendcount, c->sendtype);
        } else if (in_place) {
            const uint64_t own = block_at(c, c->recvcounts, c->recvtype, NULL, rank_in(c->comm));
            b.sent = (uint64_t)(size - 1) * own;
            b.received = minus(b.received, own);
        } else {
            b.sent = (uint64_t)size * bytes(c->sendcount, c->sendtype);
        }
        break;
    case SCOREP_COLL_ALLTOALL:
        if (inter) {
            b.sent = (uint64_t)remote * bytes(c->sendcount, c->sendtype);
            b.received = (uint64_t)remote * bytes(c->recvcount, c->recvtype);
        } else {
            /* the blocks sent have the received blocks' type signature */
            b.sent = b.received = (uint64_t)(size - (in_place ? 1 : 0)) * bytes(c->recvcount, c->recvtype);
        }
        break;
    case SCOREP_COLL_ALLTOALLV:
    case SCOREP_COLL_ALLTOALLW: {
        const void* rtypes = c->kind == SCOREP_COLL_ALLTOALLW ? c->recvtypes : NULL;
        const void* stypes = c->kind == SCOREP_COLL_ALLTOALLW ? c->sendtypes : NULL;
        b.received = sum_blocks(c, c->recvcounts, c->recvtype, rtypes, peers);
        if (!inter && in_place) {
            const uint64_t own = block_at(c, c->recvcounts, c->recvtype, rtypes, rank_in(c->comm));
            b.sent = b.received = minus(b.received, own);
        } else {
            b.sent = sum_blocks(c, c->sendcounts, c->sendtype, stypes, peers);
        }
        break;
    }
    case SCOREP_COLL_REDUCE_SCATTER: {
        /* recvcounts has an entry per process of the local group */
        const uint64_t all = sum_blocks(c, c->recvcounts, c->sendtype, NULL, size);
        const uint64_t own = block_at(c, c->recvcounts, c->sendtype, NULL, rank_in(c->comm));
        if (inter) {
            b.sent = all;
            b.received = (uint64_t)remote * own;
        } else if (in_place) {
            b.sent = minus(all, own);
            b.received = (uint64_t)(size - 1) * own;
        } else {
            b.sent = all;
            b.received = (uint64_t)size * own;
        }
        break;
    }
    case SCOREP_COLL_REDUCE_SCATTER_BLOCK:
        /* Score-P counts the local group here also on an intercommunicator */
        b.sent = b.received = (uint64_t)(size - (in_place ? 1 : 0)) * bytes(c->recvcount, c->recvtype);
        break;
    case SCOREP_COLL_SCAN: {
        const uint64_t n = bytes(c->sendcount, c->sendtype);
        const int rank = rank_in(c->comm), self = in_place ? 0 : 1;
        b.sent = (uint64_t)(size - rank - 1 + self) * n;
        b.received = (uint64_t)(rank + self) * n;
        break;
    }
    case SCOREP_COLL_EXSCAN: {
        const uint64_t n = bytes(c->sendcount, c->sendtype);
        const int rank = rank_in(c->comm);
        b.sent = (uint64_t)(size - rank - 1) * n;
        b.received = (uint64_t)rank * n;
        break;
    }
    default:
        break;
    }
    return b;
}

/* ---- the communicator's neighbours ---------------------------------------- */

static __thread int* neighbor_ranks;
static __thread int neighbor_capacity;

/* Grows the per-thread neighbour list to count ranks; it is kept for the next
 * call, so steady state allocates nothing. */
static int* neighbor_scratch(int count)
{
    if (count > neighbor_capacity) {
        int grown = neighbor_capacity ? neighbor_capacity : 16;
        while (grown < count)
            grown *= 2;
        int* more = realloc(neighbor_ranks, (size_t)grown * sizeof *more);
        if (!more) {
            fprintf(stderr, "[Score-P] Error: out of memory for %d topology neighbours\n", count);
            abort();
        }
        neighbor_ranks = more;
        neighbor_capacity = grown;
    }
    return neighbor_ranks;
}

static int real_neighbors(const int* ranks, int n)
{
    int real = 0;
    for (int i = 0; i < n; i++)
        real += ranks[i] != MPI_PROC_NULL;
    return real;
}

scorep_mpi_neighbors scorep_mpi_neighbors_of(MPI_Comm comm)
{
    static const int none[1] = { MPI_PROC_NULL };
    scorep_mpi_neighbors n = { 0, 0, 0, 0, none, none };
    int topology = MPI_UNDEFINED;
    if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &topology) != MPI_SUCCESS)
        return n;
    if (topology == MPI_CART) {
        int ndims = 0;
        if (PMPI_Cartdim_get(comm, &ndims) != MPI_SUCCESS || ndims <= 0)
            return n;
        int* ranks = neighbor_scratch(2 * ndims);
        for (int d = 0; d < ndims; d++)
            if (PMPI_Cart_shift(comm, d, 1, &ranks[2 * d], &ranks[2 * d + 1]) != MPI_SUCCESS)
                ranks[2 * d] = ranks[2 * d + 1] = MPI_PROC_NULL;
        n.indegree = n.outdegree = 2 * ndims;
        n.sources = n.destinations = ranks;
        n.real_in = n.real_out = real_neighbors(ranks, 2 * ndims);
    } else if (topology == MPI_GRAPH) {
        int rank = 0, count = 0;
        if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS
            || PMPI_Graph_neighbors_count(comm, rank, &count) != MPI_SUCCESS || count <= 0)
            return n;
        int* ranks = neighbor_scratch(count);
        if (PMPI_Graph_neighbors(comm, rank, count, ranks) != MPI_SUCCESS)
            return n;
        n.indegree = n.outdegree = count;
        n.sources = n.destinations = ranks;
        n.real_in = n.real_out = real_neighbors(ranks, count);
    } else if (topology == MPI_DIST_GRAPH) {
        int in = 0, out = 0, weighted = 0;
        if (PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) != MPI_SUCCESS
            || in < 0 || out < 0 || in + out == 0)
            return n;
        /* sources, destinations, then room for the weights MPI may write */
        int* ranks = neighbor_scratch(2 * (in + out));
        if (PMPI_Dist_graph_neighbors(comm, in, ranks, ranks + in + out, out, ranks + in,
                                      ranks + 2 * in + out) != MPI_SUCCESS)
            return n;
        n.indegree = in;
        n.outdegree = out;
        n.sources = ranks;
        n.destinations = ranks + in;
        n.real_in = real_neighbors(ranks, in);
        n.real_out = real_neighbors(ranks + in, out);
    }
    return n;
}

int scorep_mpi_collective_peers(MPI_Comm comm)
{
    int inter = 0, peers = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &peers);
    else
        PMPI_Comm_size(comm, &peers);
    return peers;
}
