/* usage: mpirun -n 4 test_coll_bytes
 * The one rule for collective bytes (scorep_mpi_collective_bytes), per
 * collective kind, against Score-P's definitions written out here as plain
 * arithmetic on the communicator's size P, the rank r and the type sizes
 * (docs/MPI_ADAPTER.md has the table). The rule only queries MPI, so the
 * calls are described, not made. Besides the per-rank values, on an
 * intracommunicator the bytes sent over all ranks must equal the bytes
 * received (every block counts at both ends). Every check prints a line
 * "FAIL <case> rank <r>: ..." when it fails; rank 0 prints "ok <kind>" for
 * every kind all of whose cases held on every rank, and the exit status is
 * the number of failed cases (tests/runtime/test_coll_bytes.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "scorep_wrapgen/mpi_layer.h"

static int P, r;
static int failures_in_kind;
static MPI_Datatype T3;   /* 3 doubles, 24 bytes */

/* One case: this rank's bytes, and (intracommunicator cases) the balance. */
static void expect(const char* name, const scorep_mpi_coll_call* call, uint64_t sent, uint64_t received,
                   int balanced)
{
    const scorep_mpi_coll_bytes got = scorep_mpi_collective_bytes(call);
    int bad = got.sent != sent || got.received != received;
    if (bad)
        printf("FAIL %s rank %d: sent %llu received %llu, expected %llu and %llu\n", name, r,
               (unsigned long long)got.sent, (unsigned long long)got.received, (unsigned long long)sent,
               (unsigned long long)received);
    if (balanced) {
        uint64_t mine[2] = { got.sent, got.received }, all[2];
        MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (all[0] != all[1]) {
            if (r == 0)
                printf("FAIL %s: over all ranks sent %llu, received %llu\n", name,
                       (unsigned long long)all[0], (unsigned long long)all[1]);
            bad = 1;
        }
    }
    failures_in_kind += bad;
}

static int failed_cases;

static void kind_done(const char* kind)
{
    int all = 0;
    MPI_Allreduce(&failures_in_kind, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (r == 0 && all == 0)
        printf("ok %s\n", kind);
    failed_cases += all;
    failures_in_kind = 0;
}

/* Fields a case leaves out are 0 / NULL: the rule reads no count, type or
 * root a kind does not have. */
#define CALL(...) (&(const scorep_mpi_coll_call){ __VA_ARGS__ })

/* 0..P-1: i + 1 */
static int ramp[64];
static long long sum_ramp(int n) { return (long long)n * (n + 1) / 2; }

/* An intercommunicator of group A = {world rank 0} and group B = the others. */
static MPI_Comm inter;
static int in_a, inter_rank, remote;

static void make_intercomm(void)
{
    MPI_Comm local;
    in_a = r == 0;
    MPI_Comm_split(MPI_COMM_WORLD, in_a, r, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? 1 : 0, 77, &inter);
    MPI_Comm_rank(inter, &inter_rank);
    MPI_Comm_remote_size(inter, &remote);
    MPI_Comm_free(&local);
}

static void barrier(void)
{
    expect("barrier", CALL(.kind = SCOREP_COLL_BARRIER, .comm = MPI_COMM_WORLD), 0, 0, 1);
    expect("barrier inter", CALL(.kind = SCOREP_COLL_BARRIER, .comm = inter), 0, 0, 0);
    kind_done("barrier");
}

static void bcast(void)
{
    /* 5 doubles from rank 1: the root sends them to every rank, itself
     * included, and every rank receives them */
    expect("bcast", CALL(.kind = SCOREP_COLL_BCAST, .comm = MPI_COMM_WORLD, .root = 1, .sendcount = 5,
                         .sendtype = MPI_DOUBLE, .recvcount = 5, .recvtype = MPI_DOUBLE),
           r == 1 ? P * 40u : 0, 40, 1);
    /* intercommunicator, A's rank is the root (MPI_ROOT), B names it as 0 */
    expect("bcast inter A->B", CALL(.kind = SCOREP_COLL_BCAST, .comm = inter, .root = in_a ? MPI_ROOT : 0,
                                    .sendcount = 5, .sendtype = MPI_DOUBLE, .recvcount = 5,
                                    .recvtype = MPI_DOUBLE),
           in_a ? (uint64_t)(P - 1) * 40 : 0, in_a ? 0 : 40, 0);
    /* B's rank 0 is the root, B's others pass MPI_PROC_NULL and move nothing */
    int root = in_a ? 0 : (inter_rank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    expect("bcast inter B->A", CALL(.kind = SCOREP_COLL_BCAST, .comm = inter, .root = root, .sendcount = 5,
                                    .sendtype = MPI_DOUBLE, .recvcount = 5, .recvtype = MPI_DOUBLE),
           root == MPI_ROOT ? 40 : 0, in_a ? 40 : 0, 0);
    /* a count beyond 32 bits */
    const MPI_Count big = 3000000000LL;
    expect("bcast large", CALL(.kind = SCOREP_COLL_BCAST, .comm = MPI_COMM_WORLD, .root = 0, .sendcount = big,
                               .sendtype = MPI_INT, .recvcount = big, .recvtype = MPI_INT),
           r == 0 ? (uint64_t)P * 12000000000ULL : 0, 12000000000ULL, 1);
    /* a derived type's size is asked anew at every call: freed, its handle may
     * come back for a type of another size (2 ints, then 5 ints) */
    MPI_Datatype pair, five;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    expect("bcast derived", CALL(.kind = SCOREP_COLL_BCAST, .comm = MPI_COMM_WORLD, .root = 0, .sendcount = 3,
                                 .sendtype = pair, .recvcount = 3, .recvtype = pair),
           r == 0 ? P * 24u : 0, 24, 1);
    MPI_Type_free(&pair);
    MPI_Type_contiguous(5, MPI_INT, &five);
    MPI_Type_commit(&five);
    expect("bcast derived made anew", CALL(.kind = SCOREP_COLL_BCAST, .comm = MPI_COMM_WORLD, .root = 0,
                                           .sendcount = 3, .sendtype = five, .recvcount = 3, .recvtype = five),
           r == 0 ? P * 60u : 0, 60, 1);
    MPI_Type_free(&five);
    const scorep_mpi_coll_bytes b = scorep_mpi_collective_bytes(
        CALL(.kind = SCOREP_COLL_BCAST, .comm = MPI_COMM_WORLD, .root = 1, .sendcount = 1, .sendtype = MPI_INT));
    if (b.root != 1) {
        printf("FAIL bcast root rank %d: recorded root %d, expected 1\n", r, b.root);
        failures_in_kind++;
    }
    kind_done("bcast");
}

static void gather(void)
{
    /* 3 ints from every rank: the root receives P blocks of 12 bytes */
    expect("gather ints", CALL(.kind = SCOREP_COLL_GATHER, .comm = MPI_COMM_WORLD, .root = 2, .sendcount = 3,
                               .sendtype = MPI_INT, .recvcount = 3, .recvtype = MPI_INT),
           12, r == 2 ? P * 12u : 0, 1);
    expect("gather", CALL(.kind = SCOREP_COLL_GATHER, .comm = MPI_COMM_WORLD, .root = 0, .sendcount = 2,
                          .sendtype = MPI_DOUBLE, .recvcount = 2, .recvtype = MPI_DOUBLE),
           16, r == 0 ? P * 16u : 0, 1);
    /* the root's own block stays in place: neither sent nor received */
    expect("gather in place", CALL(.kind = SCOREP_COLL_GATHER, .comm = MPI_COMM_WORLD, .root = 0,
                                   .send_in_place = r == 0, .sendcount = 2, .sendtype = MPI_DOUBLE,
                                   .recvcount = 2, .recvtype = MPI_DOUBLE),
           r == 0 ? 0 : 16, r == 0 ? (P - 1) * 16u : 0, 1);
    expect("gather inter", CALL(.kind = SCOREP_COLL_GATHER, .comm = inter, .root = in_a ? MPI_ROOT : 0,
                                .sendcount = 1, .sendtype = T3, .recvcount = 1, .recvtype = T3),
           in_a ? 0 : 24, in_a ? (uint64_t)(P - 1) * 24 : 0, 0);
    int root = in_a ? 0 : (inter_rank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    expect("gather inter proc_null", CALL(.kind = SCOREP_COLL_GATHER, .comm = inter, .root = root,
                                          .sendcount = 1, .sendtype = T3, .recvcount = 1, .recvtype = T3),
           in_a ? 24 : 0, root == MPI_ROOT ? 24 : 0, 0);
    kind_done("gather");
}

static void gatherv(void)
{
    /* rank i contributes i + 1 ints */
    expect("gatherv", CALL(.kind = SCOREP_COLL_GATHERV, .comm = MPI_COMM_WORLD, .root = 2, .sendcount = r + 1,
                           .sendtype = MPI_INT, .recvcounts = ramp, .recvtype = MPI_INT),
           (r + 1) * 4u, r == 2 ? (uint64_t)sum_ramp(P) * 4 : 0, 1);
    expect("gatherv in place", CALL(.kind = SCOREP_COLL_GATHERV, .comm = MPI_COMM_WORLD, .root = 2,
                                    .send_in_place = r == 2, .sendcount = r + 1, .sendtype = MPI_INT,
                                    .recvcounts = ramp, .recvtype = MPI_INT),
           r == 2 ? 0 : (r + 1) * 4u, r == 2 ? (uint64_t)(sum_ramp(P) - 3) * 4 : 0, 1);
    /* A's root receives a block from each of B's P - 1 ranks */
    expect("gatherv inter", CALL(.kind = SCOREP_COLL_GATHERV, .comm = inter, .root = in_a ? MPI_ROOT : 0,
                                 .sendcount = 2, .sendtype = MPI_INT, .recvcounts = ramp, .recvtype = MPI_INT),
           in_a ? 0 : 8, in_a ? (uint64_t)sum_ramp(P - 1) * 4 : 0, 0);
    /* large-count arrays (MPI_Count), one block beyond 32 bits */
    MPI_Count counts[64];
    for (int i = 0; i < P; i++)
        counts[i] = i == 1 ? 3000000000LL : 1;
    expect("gatherv large", CALL(.kind = SCOREP_COLL_GATHERV, .comm = MPI_COMM_WORLD, .root = 0,
                                 .sendcount = counts[r], .sendtype = MPI_INT, .recvcounts = counts,
                                 .recvtype = MPI_INT, .large = 1),
           (uint64_t)counts[r] * 4, r == 0 ? (3000000000ULL + (uint64_t)(P - 1)) * 4 : 0, 1);
    kind_done("gatherv");
}

static void scatter(void)
{
    expect("scatter", CALL(.kind = SCOREP_COLL_SCATTER, .comm = MPI_COMM_WORLD, .root = 3, .sendcount = 3,
                           .sendtype = MPI_INT, .recvcount = 3, .recvtype = MPI_INT),
           r == 3 ? P * 12u : 0, 12, 1);
    expect("scatter in place", CALL(.kind = SCOREP_COLL_SCATTER, .comm = MPI_COMM_WORLD, .root = 3,
                                    .recv_in_place = r == 3, .sendcount = 3, .sendtype = MPI_INT,
                                    .recvcount = 3, .recvtype = MPI_INT),
           r == 3 ? (P - 1) * 12u : 0, r == 3 ? 0 : 12, 1);
    expect("scatter inter", CALL(.kind = SCOREP_COLL_SCATTER, .comm = inter, .root = in_a ? MPI_ROOT : 0,
                                 .sendcount = 3, .sendtype = MPI_INT, .recvcount = 3, .recvtype = MPI_INT),
           in_a ? (uint64_t)(P - 1) * 12 : 0, in_a ? 0 : 12, 0);
    /* B's rank 0 scatters to A's one rank; B's others move nothing */
    int root = in_a ? 0 : (inter_rank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    expect("scatter inter proc_null", CALL(.kind = SCOREP_COLL_SCATTER, .comm = inter, .root = root,
                                           .sendcount = 3, .sendtype = MPI_INT, .recvcount = 3,
                                           .recvtype = MPI_INT),
           root == MPI_ROOT ? 12 : 0, in_a ? 12 : 0, 0);
    kind_done("scatter");
}

static void scatterv(void)
{
    int odd[64];
    for (int i = 0; i < P; i++)
        odd[i] = 2 * i + 1;   /* sum over P ranks: P * P */
    expect("scatterv", CALL(.kind = SCOREP_COLL_SCATTERV, .comm = MPI_COMM_WORLD, .root = 0, .sendcounts = odd,
                            .sendtype = MPI_DOUBLE, .recvcount = 2 * r + 1, .recvtype = MPI_DOUBLE),
           r == 0 ? (uint64_t)P * P * 8 : 0, (2 * r + 1) * 8u, 1);
    expect("scatterv in place", CALL(.kind = SCOREP_COLL_SCATTERV, .comm = MPI_COMM_WORLD, .root = 0,
                                     .recv_in_place = r == 0, .sendcounts = odd, .sendtype = MPI_DOUBLE,
                                     .recvcount = 2 * r + 1, .recvtype = MPI_DOUBLE),
           r == 0 ? (uint64_t)(P * P - 1) * 8 : 0, r == 0 ? 0 : (2 * r + 1) * 8u, 1);
    expect("scatterv inter", CALL(.kind = SCOREP_COLL_SCATTERV, .comm = inter, .root = in_a ? MPI_ROOT : 0,
                                  .sendcounts = odd, .sendtype = MPI_DOUBLE, .recvcount = 1,
                                  .recvtype = MPI_DOUBLE),
           in_a ? (uint64_t)(P - 1) * (P - 1) * 8 : 0, in_a ? 0 : 8, 0);
    kind_done("scatterv");
}

static void reduce(void)
{
    expect("reduce", CALL(.kind = SCOREP_COLL_REDUCE, .comm = MPI_COMM_WORLD, .root = 1, .sendcount = 4,
                          .sendtype = MPI_DOUBLE, .recvcount = 4, .recvtype = MPI_DOUBLE),
           32, r == 1 ? P * 32u : 0, 1);
    expect("reduce in place", CALL(.kind = SCOREP_COLL_REDUCE, .comm = MPI_COMM_WORLD, .root = 1,
                                   .send_in_place = r == 1, .sendcount = 4, .sendtype = MPI_DOUBLE,
                                   .recvcount = 4, .recvtype = MPI_DOUBLE),
           r == 1 ? 0 : 32, r == 1 ? (P - 1) * 32u : 0, 1);
    int root = in_a ? 0 : (inter_rank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    expect("reduce inter", CALL(.kind = SCOREP_COLL_REDUCE, .comm = inter, .root = root, .sendcount = 4,
                                .sendtype = MPI_DOUBLE, .recvcount = 4, .recvtype = MPI_DOUBLE),
           in_a ? 32 : 0, root == MPI_ROOT ? 32 : 0, 0);
    /* A's rank is the root: it receives one contribution per rank of B */
    expect("reduce inter A root", CALL(.kind = SCOREP_COLL_REDUCE, .comm = inter, .root = in_a ? MPI_ROOT : 0,
                                       .sendcount = 4, .sendtype = MPI_DOUBLE, .recvcount = 4,
                                       .recvtype = MPI_DOUBLE),
           in_a ? 0 : 32, in_a ? (uint64_t)(P - 1) * 32 : 0, 0);
    kind_done("reduce");
}

static void allreduce(void)
{
    expect("allreduce", CALL(.kind = SCOREP_COLL_ALLREDUCE, .comm = MPI_COMM_WORLD, .sendcount = 4,
                             .sendtype = MPI_INT, .recvcount = 4, .recvtype = MPI_INT),
           P * 16u, P * 16u, 1);
    expect("allreduce in place", CALL(.kind = SCOREP_COLL_ALLREDUCE, .comm = MPI_COMM_WORLD, .send_in_place = 1,
                                      .sendcount = 4, .sendtype = MPI_INT, .recvcount = 4, .recvtype = MPI_INT),
           (P - 1) * 16u, (P - 1) * 16u, 1);
    expect("allreduce inter", CALL(.kind = SCOREP_COLL_ALLREDUCE, .comm = inter, .sendcount = 4,
                                   .sendtype = MPI_INT, .recvcount = 4, .recvtype = MPI_INT),
           remote * 16u, remote * 16u, 0);
    expect("allreduce comm null", CALL(.kind = SCOREP_COLL_ALLREDUCE, .comm = MPI_COMM_NULL, .sendcount = 4,
                                       .sendtype = MPI_INT, .recvcount = 4, .recvtype = MPI_INT),
           0, 0, 0);
    kind_done("allreduce");
}

static void allgather(void)
{
    /* sent as one T3, received as 3 doubles: 24 bytes a block either way */
    expect("allgather", CALL(.kind = SCOREP_COLL_ALLGATHER, .comm = MPI_COMM_WORLD, .sendcount = 1,
                             .sendtype = T3, .recvcount = 3, .recvtype = MPI_DOUBLE),
           P * 24u, P * 24u, 1);
    expect("allgather in place", CALL(.kind = SCOREP_COLL_ALLGATHER, .comm = MPI_COMM_WORLD, .send_in_place = 1,
                                      .recvcount = 3, .recvtype = MPI_DOUBLE),
           (P - 1) * 24u, (P - 1) * 24u, 1);
    expect("allgather inter", CALL(.kind = SCOREP_COLL_ALLGATHER, .comm = inter, .sendcount = 1, .sendtype = T3,
                                   .recvcount = 2, .recvtype = MPI_INT),
           remote * 24u, remote * 8u, 0);
    kind_done("allgather");
}

static void allgatherv(void)
{
    expect("allgatherv", CALL(.kind = SCOREP_COLL_ALLGATHERV, .comm = MPI_COMM_WORLD, .sendcount = r + 1,
                              .sendtype = MPI_INT, .recvcounts = ramp, .recvtype = MPI_INT),
           (uint64_t)P * (r + 1) * 4, (uint64_t)sum_ramp(P) * 4, 1);
    expect("allgatherv in place", CALL(.kind = SCOREP_COLL_ALLGATHERV, .comm = MPI_COMM_WORLD,
                                       .send_in_place = 1, .recvcounts = ramp, .recvtype = MPI_INT),
           (uint64_t)(P - 1) * (r + 1) * 4, (uint64_t)(sum_ramp(P) - (r + 1)) * 4, 1);
    expect("allgatherv inter", CALL(.kind = SCOREP_COLL_ALLGATHERV, .comm = inter, .sendcount = 2,
                                    .sendtype = MPI_INT, .recvcounts = ramp, .recvtype = MPI_INT),
           remote * 8u, (uint64_t)sum_ramp(remote) * 4, 0);
    kind_done("allgatherv");
}

static void alltoall(void)
{
    expect("alltoall", CALL(.kind = SCOREP_COLL_ALLTOALL, .comm = MPI_COMM_WORLD, .sendcount = 2,
                            .sendtype = MPI_INT, .recvcount = 2, .recvtype = MPI_INT),
           P * 8u, P * 8u, 1);
    expect("alltoall in place", CALL(.kind = SCOREP_COLL_ALLTOALL, .comm = MPI_COMM_WORLD, .send_in_place = 1,
                                     .recvcount = 2, .recvtype = MPI_INT),
           (P - 1) * 8u, (P - 1) * 8u, 1);
    expect("alltoall inter", CALL(.kind = SCOREP_COLL_ALLTOALL, .comm = inter, .sendcount = 1,
                                  .sendtype = MPI_DOUBLE, .recvcount = 1, .recvtype = MPI_INT),
           remote * 8u, remote * 4u, 0);
    kind_done("alltoall");
}

static void alltoallv(void)
{
    /* rank r sends r + 1 ints to every rank, and receives i + 1 from rank i */
    int mine[64];
    for (int i = 0; i < P; i++)
        mine[i] = r + 1;
    expect("alltoallv", CALL(.kind = SCOREP_COLL_ALLTOALLV, .comm = MPI_COMM_WORLD, .sendcounts = mine,
                             .sendtype = MPI_INT, .recvcounts = ramp, .recvtype = MPI_INT),
           (uint64_t)P * (r + 1) * 4, (uint64_t)sum_ramp(P) * 4, 1);
    /* in place: the blocks are the receive blocks, the own one stays */
    expect("alltoallv in place", CALL(.kind = SCOREP_COLL_ALLTOALLV, .comm = MPI_COMM_WORLD, .send_in_place = 1,
                                      .recvcounts = ramp, .recvtype = MPI_INT),
           (uint64_t)(sum_ramp(P) - (r + 1)) * 4, (uint64_t)(sum_ramp(P) - (r + 1)) * 4, 1);
    expect("alltoallv inter", CALL(.kind = SCOREP_COLL_ALLTOALLV, .comm = inter, .sendcounts = mine,
                                   .sendtype = MPI_INT, .recvcounts = ramp, .recvtype = MPI_DOUBLE),
           (uint64_t)remote * (r + 1) * 4, (uint64_t)sum_ramp(remote) * 8, 0);
    kind_done("alltoallv");
}

static void alltoallw(void)
{
    /* block i: i + 1 elements of int (even i) or double (odd i) */
    MPI_Datatype types[64];
    MPI_Fint ftypes[64];
    uint64_t all = 0;
    for (int i = 0; i < P; i++) {
        types[i] = i % 2 ? MPI_DOUBLE : MPI_INT;
        ftypes[i] = MPI_Type_c2f(types[i]);
        all += (uint64_t)(i + 1) * (i % 2 ? 8 : 4);
    }
    const uint64_t own = (uint64_t)(r + 1) * (r % 2 ? 8 : 4);
    expect("alltoallw", CALL(.kind = SCOREP_COLL_ALLTOALLW, .comm = MPI_COMM_WORLD, .sendcounts = ramp,
                             .sendtypes = types, .recvcounts = ramp, .recvtypes = types),
           all, all, 1);
    expect("alltoallw in place", CALL(.kind = SCOREP_COLL_ALLTOALLW, .comm = MPI_COMM_WORLD, .send_in_place = 1,
                                      .recvcounts = ramp, .recvtypes = types),
           all - own, all - own, 1);
    /* the same with Fortran handles (the mpif.h and mpi_f08 wrappers) */
    expect("alltoallw fortran", CALL(.kind = SCOREP_COLL_ALLTOALLW, .comm = MPI_COMM_WORLD, .sendcounts = ramp,
                                     .sendtypes = ftypes, .recvcounts = ramp, .recvtypes = ftypes,
                                     .fortran_types = 1),
           all, all, 1);
    uint64_t remote_all = 0;
    for (int i = 0; i < remote; i++)
        remote_all += (uint64_t)(i + 1) * (i % 2 ? 8 : 4);
    expect("alltoallw inter", CALL(.kind = SCOREP_COLL_ALLTOALLW, .comm = inter, .sendcounts = ramp,
                                   .sendtypes = types, .recvcounts = ramp, .recvtypes = types),
           remote_all, remote_all, 0);
    kind_done("alltoallw");
}

static void reduce_scatter(void)
{
    /* rank i gets i + 1 doubles of the result */
    expect("reduce_scatter", CALL(.kind = SCOREP_COLL_REDUCE_SCATTER, .comm = MPI_COMM_WORLD,
                                  .recvcounts = ramp, .sendtype = MPI_DOUBLE, .recvtype = MPI_DOUBLE),
           (uint64_t)sum_ramp(P) * 8, (uint64_t)P * (r + 1) * 8, 1);
    expect("reduce_scatter in place", CALL(.kind = SCOREP_COLL_REDUCE_SCATTER, .comm = MPI_COMM_WORLD,
                                           .send_in_place = 1, .recvcounts = ramp, .sendtype = MPI_DOUBLE,
                                           .recvtype = MPI_DOUBLE),
           (uint64_t)(sum_ramp(P) - (r + 1)) * 8, (uint64_t)(P - 1) * (r + 1) * 8, 1);
    int local_size;
    MPI_Comm_size(inter, &local_size);
    expect("reduce_scatter inter", CALL(.kind = SCOREP_COLL_REDUCE_SCATTER, .comm = inter, .recvcounts = ramp,
                                        .sendtype = MPI_DOUBLE, .recvtype = MPI_DOUBLE),
           (uint64_t)sum_ramp(local_size) * 8, (uint64_t)remote * (inter_rank + 1) * 8, 0);
    kind_done("reduce_scatter");
}

static void reduce_scatter_block(void)
{
    expect("reduce_scatter_block", CALL(.kind = SCOREP_COLL_REDUCE_SCATTER_BLOCK, .comm = MPI_COMM_WORLD,
                                        .recvcount = 3, .sendtype = MPI_DOUBLE, .recvtype = MPI_DOUBLE),
           P * 24u, P * 24u, 1);
    expect("reduce_scatter_block in place", CALL(.kind = SCOREP_COLL_REDUCE_SCATTER_BLOCK, .comm = MPI_COMM_WORLD,
                                                 .send_in_place = 1, .recvcount = 3, .sendtype = MPI_DOUBLE,
                                                 .recvtype = MPI_DOUBLE),
           (P - 1) * 24u, (P - 1) * 24u, 1);
    /* Score-P counts the local group here, also on an intercommunicator */
    int local_size;
    MPI_Comm_size(inter, &local_size);
    expect("reduce_scatter_block inter", CALL(.kind = SCOREP_COLL_REDUCE_SCATTER_BLOCK, .comm = inter,
                                              .recvcount = 3, .sendtype = MPI_DOUBLE, .recvtype = MPI_DOUBLE),
           local_size * 24u, local_size * 24u, 0);
    kind_done("reduce_scatter_block");
}

static void scan(void)
{
    /* rank r's contribution goes to ranks r..P-1, it gets those of 0..r */
    expect("scan", CALL(.kind = SCOREP_COLL_SCAN, .comm = MPI_COMM_WORLD, .sendcount = 2, .sendtype = MPI_DOUBLE,
                        .recvcount = 2, .recvtype = MPI_DOUBLE),
           (uint64_t)(P - r) * 16, (uint64_t)(r + 1) * 16, 1);
    expect("scan in place", CALL(.kind = SCOREP_COLL_SCAN, .comm = MPI_COMM_WORLD, .send_in_place = 1,
                                 .sendcount = 2, .sendtype = MPI_DOUBLE, .recvcount = 2, .recvtype = MPI_DOUBLE),
           (uint64_t)(P - r - 1) * 16, (uint64_t)r * 16, 1);
    kind_done("scan");
}

static void exscan(void)
{
    expect("exscan", CALL(.kind = SCOREP_COLL_EXSCAN, .comm = MPI_COMM_WORLD, .sendcount = 2,
                          .sendtype = MPI_DOUBLE, .recvcount = 2, .recvtype = MPI_DOUBLE),
           (uint64_t)(P - r - 1) * 16, (uint64_t)r * 16, 1);
    expect("exscan in place", CALL(.kind = SCOREP_COLL_EXSCAN, .comm = MPI_COMM_WORLD, .send_in_place = 1,
                                   .sendcount = 2, .sendtype = MPI_DOUBLE, .recvcount = 2, .recvtype = MPI_DOUBLE),
           (uint64_t)(P - r - 1) * 16, (uint64_t)r * 16, 1);
    kind_done("exscan");
}

/* Neighbourhood collectives on a non-periodic line (left and right
 * neighbour, MPI_PROC_NULL at the ends), on a distributed graph, a star:
 * rank 0 sends to every other rank and receives from none, and on a
 * (non-distributed) graph, a ring: every rank's neighbours are the rank
 * before and the rank after it. */
static MPI_Comm line, star, ring;

static void make_ring(void)
{
    int index[64], edges[128];
    for (int i = 0; i < P; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + P - 1) % P;
        edges[2 * i + 1] = (i + 1) % P;
    }
    MPI_Graph_create(MPI_COMM_WORLD, P, index, edges, 0, &ring);
}

static void neighbor(void)
{
    const int dims[1] = { P }, periods[1] = { 0 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    make_ring();
    const int left = r > 0, right = r < P - 1, real = left + right;
    int others[64], ones[64];
    for (int i = 1; i < P; i++)
        others[i - 1] = i;
    for (int i = 0; i < P; i++)
        ones[i] = 1;
    const int zero[1] = { 0 };
    if (r == 0)
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, zero, ones, P - 1, others, ones,
                                       MPI_INFO_NULL, 0, &star);
    else
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, zero, ones, 0, others, ones,
                                       MPI_INFO_NULL, 0, &star);

    expect("neighbor_allgather line", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLGATHER, .comm = line, .sendcount = 2,
                                           .sendtype = MPI_INT, .recvcount = 2, .recvtype = MPI_INT),
           real * 8u, real * 8u, 1);
    expect("neighbor_allgather star", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLGATHER, .comm = star,
                                           .sendcount = 1, .sendtype = MPI_DOUBLE, .recvcount = 1,
                                           .recvtype = MPI_DOUBLE),
           r == 0 ? (P - 1) * 8u : 0, r == 0 ? 0 : 8, 1);
    expect("neighbor_allgather ring", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLGATHER, .comm = ring,
                                           .sendcount = 3, .sendtype = MPI_INT, .recvcount = 3,
                                           .recvtype = MPI_INT),
           24, 24, 1);
    /* a communicator without topology has no neighbours: nothing moves */
    expect("neighbor_allgather no topology", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLGATHER, .comm = MPI_COMM_WORLD,
                                                  .sendcount = 3, .sendtype = MPI_INT, .recvcount = 3,
                                                  .recvtype = MPI_INT),
           0, 0, 1);
    kind_done("neighbor_allgather");

    const int lr[2] = { 5, 7 };   /* from the left, from the right */
    expect("neighbor_allgatherv line", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLGATHERV, .comm = line,
                                            .sendcount = 1, .sendtype = MPI_INT, .recvcounts = lr,
                                            .recvtype = MPI_INT),
           real * 4u, (left * 5u + right * 7u) * 4, 0);
    kind_done("neighbor_allgatherv");

    expect("neighbor_alltoall star", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLTOALL, .comm = star, .sendcount = 3,
                                          .sendtype = MPI_INT, .recvcount = 3, .recvtype = MPI_INT),
           r == 0 ? (P - 1) * 12u : 0, r == 0 ? 0 : 12, 1);
    kind_done("neighbor_alltoall");

    const int out[2] = { 1, 2 }, in[2] = { 3, 4 };
    expect("neighbor_alltoallv line", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLTOALLV, .comm = line,
                                           .sendcounts = out, .sendtype = MPI_DOUBLE, .recvcounts = in,
                                           .recvtype = MPI_DOUBLE),
           (left * 1u + right * 2u) * 8, (left * 3u + right * 4u) * 8, 0);
    /* on the ring both neighbours are real: 1 + 2 doubles out, 3 + 4 in */
    expect("neighbor_alltoallv ring", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLTOALLV, .comm = ring,
                                           .sendcounts = out, .sendtype = MPI_DOUBLE, .recvcounts = in,
                                           .recvtype = MPI_DOUBLE),
           24, 56, 0);
    kind_done("neighbor_alltoallv");

    const MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE };
    expect("neighbor_alltoallw line", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLTOALLW, .comm = line,
                                           .sendcounts = out, .sendtypes = types, .recvcounts = in,
                                           .recvtypes = types),
           left * 4u + right * 16u, left * 12u + right * 32u, 0);
    /* Fortran handles, MPI_Count counts, a block beyond 32 bits to rank 1 */
    MPI_Count big[64];
    MPI_Fint ftypes[64];
    for (int i = 0; i < P; i++) {
        big[i] = i == 0 ? 3000000000LL : 1;
        ftypes[i] = MPI_Type_c2f(MPI_INT);
    }
    expect("neighbor_alltoallw star large fortran", CALL(.kind = SCOREP_COLL_NEIGHBOR_ALLTOALLW, .comm = star,
                                                         .sendcounts = big, .sendtypes = ftypes,
                                                         .recvcounts = big, .recvtypes = ftypes, .large = 1,
                                                         .fortran_types = 1),
           r == 0 ? (3000000000ULL + (uint64_t)(P - 2)) * 4 : 0, r == 0 ? 0 : 12000000000ULL, 0);
    kind_done("neighbor_alltoallw");
    MPI_Comm_free(&line);
    MPI_Comm_free(&star);
    MPI_Comm_free(&ring);
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (P < 4 || P > 64) {
        if (r == 0)
            fprintf(stderr, "test_coll_bytes: run it on 4 to 64 ranks, not %d\n", P);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < P; i++)
        ramp[i] = i + 1;
    MPI_Type_contiguous(3, MPI_DOUBLE, &T3);
    MPI_Type_commit(&T3);
    make_intercomm();

    barrier();
    bcast();
    gather();
    gatherv();
    scatter();
    scatterv();
    reduce();
    allreduce();
    allgather();
    allgatherv();
    alltoall();
    alltoallv();
    alltoallw();
    reduce_scatter();
    reduce_scatter_block();
    scan();
    exscan();
    neighbor();

    MPI_Comm_free(&inter);
    MPI_Type_free(&T3);
    MPI_Finalize();
    return failed_cases > 255 ? 255 : failed_cases;
}
