/* One-sided and collective OpenSHMEM operations with known counts.
 * Each PE prints its results (the data it received, which the test compares
 * with a plain run's) and "plan" lines: what it did, per call and target
 * PE, counted by the program itself (calls and bytes from sizeof). */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#define N 10          /* longs per put */
#define ROUNDS 3      /* puts per PE */
#define GETS 2        /* gets per PE */
#define NI 4          /* ints per get */
#define MEM 5         /* bytes per putmem */
#define NB 4          /* longs broadcast */
#define NC 2          /* longs per PE in fcollect and alltoall */
#define NNBI 6        /* longs per non-blocking put */
#define MAXPES 16

static long dst[N], src[N], nbi[NNBI];
static int ibuf[NI], ishared[NI];
static char mem[MEM], memsrc[MEM];
static long counter, swapped, single;
static long total, mine;
static long bsrc[NB], bdst[NB];
static long csrc[NC], cdst[NC * MAXPES];
static long asrc[NC * MAXPES], adst[NC * MAXPES];
static long psync_bar[SHMEM_BARRIER_SYNC_SIZE], psync_bcast[SHMEM_BCAST_SYNC_SIZE];
static long psync_coll[SHMEM_COLLECT_SYNC_SIZE], psync_red[SHMEM_REDUCE_SYNC_SIZE];
static long psync_a2a[SHMEM_ALLTOALL_SYNC_SIZE], psync_set[SHMEM_BARRIER_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

/* target -1: a synchronisation, no target PE */
static void plan(int me, const char* call, int visits, long put, long got, int target)
{
    printf("plan pe=%d call=%s visits=%d bytes_put=%ld bytes_get=%ld target=%d\n", me, call, visits, put, got,
           target);
}

/* a collective: the bytes this PE contributes and the bytes it receives */
static void coll(int me, const char* call, long sent, long received)
{
    printf("coll pe=%d call=%s visits=1 bytes_sent=%ld bytes_received=%ld\n", me, call, sent, received);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > MAXPES) {
        if (me == 0) printf("at most %d PEs\n", MAXPES);
        shmem_finalize();
        return 1;
    }
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) psync_bar[i] = psync_set[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++) psync_bcast[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++) psync_coll[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) psync_red[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++) psync_a2a[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < N; i++) src[i] = 100 * me + i;
    for (int i = 0; i < NI; i++) ishared[i] = 10 * me + i;
    for (int i = 0; i < NB; i++) bsrc[i] = 7 + i;
    for (int i = 0; i < NC; i++) csrc[i] = 1000 * me + i;
    for (int i = 0; i < NC * npes; i++) asrc[i] = 10000 * me + i;
    memset(memsrc, 'a' + me, MEM);
    mine = me + 1;
    shmem_barrier_all();

    /* puts to the right, gets from the left */
    for (int r = 0; r < ROUNDS; r++) shmem_long_put(dst, src, N, right);
    plan(me, "shmem_long_put", ROUNDS, (long)(ROUNDS * N * sizeof(long)), 0, right);
    shmem_putmem(mem, memsrc, MEM, right);
    plan(me, "shmem_putmem", 1, MEM, 0, right);
    shmem_long_put_nbi(nbi, src, NNBI, left);
    plan(me, "shmem_long_put_nbi", 1, (long)(NNBI * sizeof(long)), 0, left);
    shmem_long_p(&single, me, left);
    plan(me, "shmem_long_p", 1, (long)sizeof(long), 0, left);
    shmem_barrier_all();
    for (int r = 0; r < GETS; r++) shmem_int_get(ibuf, ishared, NI, left);
    plan(me, "shmem_int_get", GETS, 0, (long)(GETS * NI * sizeof(int)), left);
    long remote_single = shmem_long_g(&single, right);
    plan(me, "shmem_long_g", 1, 0, (long)sizeof(long), right);

    /* atomics on PE 0's counter */
    long before = shmem_long_atomic_fetch_add(&counter, 2, 0);
    /* atomics: the operand goes to the target, a fetched value comes back */
    plan(me, "shmem_long_atomic_fetch_add", 1, (long)sizeof(long), (long)sizeof(long), 0);
    shmem_long_atomic_inc(&counter, 0);
    plan(me, "shmem_long_atomic_inc", 1, 0, 0, 0);
    (void)shmem_long_atomic_swap(&swapped, me, right);
    plan(me, "shmem_long_atomic_swap", 1, (long)sizeof(long), (long)sizeof(long), right);
    shmem_quiet();
    shmem_barrier_all();
    plan(me, "shmem_barrier_all", 4, 0, 0, -1);

    /* collectives over all PEs */
    long bbytes = (long)(NB * sizeof(long)), cbytes = (long)(NC * sizeof(long));
    shmem_broadcast64(bdst, bsrc, NB, 0, 0, 0, npes, psync_bcast);
    coll(me, "shmem_broadcast64", me == 0 ? bbytes : 0, me == 0 ? 0 : bbytes);   /* root 0 sends */
    shmem_fcollect64(cdst, csrc, NC, 0, 0, npes, psync_coll);
    coll(me, "shmem_fcollect64", cbytes, cbytes * npes);
    shmem_long_sum_to_all(&total, &mine, 1, 0, 0, npes, pwrk, psync_red);
    coll(me, "shmem_long_sum_to_all", (long)sizeof(long), (long)sizeof(long));
    shmem_alltoall64(adst, asrc, NC, 0, 0, npes, psync_a2a);
    coll(me, "shmem_alltoall64", cbytes * npes, cbytes * npes);
    shmem_barrier(0, 0, npes, psync_bar);
    /* and a barrier of the even PEs: an active set of stride 2 */
    int evens = (npes + 1) / 2;
    if (me % 2 == 0) shmem_barrier(0, 1, evens, psync_set);
    plan(me, "shmem_barrier", 1 + (me % 2 == 0), 0, 0, -1);
    shmem_barrier_all();

    /* results: what this PE received */
    long want_counter = 3L * npes;
    printf("result pe=%d dst0=%ld dst9=%ld nbi=%ld ibuf=%d,%d mem=%c single=%ld g=%ld\n", me, dst[0],
           dst[N - 1], nbi[NNBI - 1], ibuf[0], ibuf[NI - 1], mem[0], single, remote_single);
    if (me == 0) printf("result counter=%ld (want %ld) before<%ld\n", counter, want_counter, want_counter);
    (void)before;
    printf("result pe=%d swapped=%ld bcast=%ld,%ld coll=%ld,%ld total=%ld a2a=%ld,%ld\n", me, swapped,
           me == 0 ? 7L : bdst[0], bdst[NB - 1], cdst[0], cdst[NC * npes - 1], total, adst[0],
           adst[NC * npes - 1]);
    shmem_finalize();
    return 0;
}
