/* Request tracking, RMA and I/O events through the adapter API in one
 * process (fake request handles; no MPI). The resulting profile.json is
 * checked by tests/runtime/test_requests.py:
 *   region "nonblocking": isend 10 B (h1), irecv request (h2), persistent
 *     send_init 20 B (h3) started twice, recv_init (h4) started once
 *   region "wait": completes h1, h2 (source 3, 30 B), h3 twice, h4 cancelled,
 *     an unknown handle (ignored) and h1 again (already completed: ignored)
 *   region "rma": put 100 B, get 50 B, atomic 8 B out / 8 B in, fence with
 *     16 B out / 32 B in
 *   region "io": 1000 B read, 24 B written
 * Then the request table's queues (requests sharing a handle), checked here
 * through a recording substrate: every check prints "FAIL ..." and the
 * program exits 1 on a failure; at the end it prints "queues: ok". The
 * checks run in region "queues" (and threads in "queue-thread"), so the
 * profile rows above are unaffected. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "substrates.h"
#include "scorep_wrapgen/adapter.h"

/* ---- a substrate that records the request events ---- */

enum { EV_ISEND = 1, EV_ISEND_COMPLETE, EV_IRECV_REQUEST, EV_IRECV, EV_TEST, EV_CANCELLED };
typedef struct recorded { int kind; uint64_t id; int peer, tag; uint64_t bytes; } recorded;
static recorded* events;
static size_t nevents, cap_events;
static pthread_mutex_t events_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures;

static void record(int kind, uint64_t id, int peer, int tag, uint64_t bytes)
{
    pthread_mutex_lock(&events_lock);
    if (nevents == cap_events) {
        cap_events = cap_events ? 2 * cap_events : 1024;
        events = realloc(events, cap_events * sizeof *events);
    }
    events[nevents++] = (recorded){kind, id, peer, tag, bytes};
    pthread_mutex_unlock(&events_lock);
}

static void rec_isend(scorep_location* l, uint64_t t, scorep_comm c, int peer, int tag, uint64_t bytes,
                      uint64_t id)
{
    (void)l, (void)t, (void)c;
    record(EV_ISEND, id, peer, tag, bytes);
}
static void rec_isend_complete(scorep_location* l, uint64_t t, uint64_t id)
{
    (void)l, (void)t;
    record(EV_ISEND_COMPLETE, id, 0, 0, 0);
}
static void rec_irecv_request(scorep_location* l, uint64_t t, uint64_t id)
{
    (void)l, (void)t;
    record(EV_IRECV_REQUEST, id, 0, 0, 0);
}
static void rec_irecv(scorep_location* l, uint64_t t, scorep_comm c, int peer, int tag, uint64_t bytes,
                      uint64_t id)
{
    (void)l, (void)t, (void)c;
    record(EV_IRECV, id, peer, tag, bytes);
}
static void rec_test(scorep_location* l, uint64_t t, uint64_t id)
{
    (void)l, (void)t;
    record(EV_TEST, id, 0, 0, 0);
}
static void rec_cancelled(scorep_location* l, uint64_t t, uint64_t id)
{
    (void)l, (void)t;
    record(EV_CANCELLED, id, 0, 0, 0);
}
static const scorep_substrate recorder = {
    .name = "recorder", .mpi_isend = rec_isend, .mpi_isend_complete = rec_isend_complete,
    .mpi_irecv_request = rec_irecv_request, .mpi_irecv = rec_irecv, .mpi_request_test = rec_test,
    .mpi_request_cancelled = rec_cancelled};

static const char* const kind_names[] = {"?", "isend", "isend-complete", "irecv-request", "irecv", "test",
                                         "cancelled"};

/* The id of the last recorded event (of the kind). */
static uint64_t last_id(int kind)
{
    for (size_t i = nevents; i-- > 0;)
        if (events[i].kind == kind) return events[i].id;
    return 0;
}

/* The events recorded since `from` must be exactly `n` (kind, id) pairs. */
static void expect_events(const char* what, size_t from, int n, const int* kinds, const uint64_t* ids)
{
    int ok = (int)(nevents - from) == n;
    for (int i = 0; ok && i < n; i++)
        ok = events[from + i].kind == kinds[i] && events[from + i].id == ids[i];
    if (ok) return;
    failures++;
    printf("FAIL %s: got", what);
    for (size_t i = from; i < nevents; i++) printf(" %s:%llu", kind_names[events[i].kind], (unsigned long long)events[i].id);
    printf("; want");
    for (int i = 0; i < n; i++) printf(" %s:%llu", kind_names[kinds[i]], (unsigned long long)ids[i]);
    printf("\n");
}
#define EXPECT(what, from, ...)                                                                      \
    do {                                                                                             \
        const struct { int kind; uint64_t id; } want_[] = {__VA_ARGS__};                             \
        int n_ = (int)(sizeof want_ / sizeof want_[0]);                                              \
        int kinds_[sizeof want_ / sizeof want_[0]];                                                  \
        uint64_t ids_[sizeof want_ / sizeof want_[0]];                                               \
        for (int i_ = 0; i_ < n_; i_++) kinds_[i_] = want_[i_].kind, ids_[i_] = want_[i_].id;        \
        expect_events(what, from, n_, kinds_, ids_);                                                 \
    } while (0)
#define NOTHING_SINCE(what, from)                                                                    \
    do {                                                                                             \
        if (nevents != (from)) {                                                                     \
            failures++;                                                                              \
            printf("FAIL %s: %zu unexpected events\n", what, nevents - (from));                      \
        }                                                                                            \
    } while (0)

static uint64_t isend(scorep_comm comm, int peer, uint64_t bytes, scorep_request handle)
{
    scorep_mpi_isend(comm, peer, 1, bytes, handle);
    return last_id(EV_ISEND);
}

static uint64_t irecv(scorep_comm comm, scorep_request handle)
{
    scorep_mpi_irecv_request(comm, handle);
    return last_id(EV_IRECV_REQUEST);
}

/* Requests that share a handle (MPI's handle for requests complete at
 * creation) complete oldest first, each exactly once. */
static void check_shared_handle(scorep_comm comm)
{
    size_t from = nevents;
    uint64_t a = isend(comm, 1, 4, 0x70), b = isend(comm, 2, 8, 0x70), r = irecv(comm, 0x70);
    uint64_t c = isend(comm, 1, 16, 0x70);
    from = nevents;
    scorep_mpi_request_test(0x70);
    EXPECT("test of a shared handle names its oldest request", from, {EV_TEST, a});
    from = nevents;
    for (int i = 0; i < 4; i++) scorep_mpi_request_complete(0x70, 1, 3, 12, 0);
    EXPECT("shared handle completes oldest first", from, {EV_ISEND_COMPLETE, a}, {EV_ISEND_COMPLETE, b},
           {EV_IRECV, r}, {EV_ISEND_COMPLETE, c});
    if (nevents < from + 3 || events[from + 2].peer != 1 || events[from + 2].tag != 3 || events[from + 2].bytes != 12) {
        failures++;
        printf("FAIL the receive in a shared handle's queue records the status\n");
    }
    from = nevents;
    scorep_mpi_request_complete(0x70, 1, 3, 12, 0);
    NOTHING_SINCE("an emptied shared handle is unknown", from);

    /* the handle is usable again, and free / cancel take the oldest */
    uint64_t d = isend(comm, 1, 4, 0x70), e = isend(comm, 1, 4, 0x70), f = isend(comm, 1, 4, 0x70);
    scorep_mpi_request_free(0x70);   /* drops d */
    from = nevents;
    scorep_mpi_request_cancel(0x70);
    scorep_mpi_request_complete(0x70, 0, 0, 0, 1);
    scorep_mpi_request_complete(0x70, 0, 0, 0, 0);
    scorep_mpi_request_complete(0x70, 0, 0, 0, 0);
    EXPECT("free and cancel apply to the oldest of a shared handle", from, {EV_CANCELLED, e},
           {EV_ISEND_COMPLETE, f});
    (void)d;
}

/* Persistent requests are their handle's only entry and are re-armed. */
static void check_persistent(scorep_comm comm)
{
    scorep_mpi_isend(comm, 1, 1, 4, 0x80);          /* stale: the handle was freed unseen */
    scorep_mpi_send_init(comm, 2, 6, 20, 0x80);     /* drops the stale one */
    size_t from = nevents;
    for (int round = 0; round < 3; round++) {
        scorep_mpi_request_start(0x80);
        uint64_t id = last_id(EV_ISEND);
        scorep_mpi_request_complete(0x80, 0, 0, 0, 0);
        EXPECT("a persistent request completes each start", from, {EV_ISEND, id}, {EV_ISEND_COMPLETE, id});
        from = nevents;
    }
    scorep_mpi_request_complete(0x80, 0, 0, 0, 0);
    NOTHING_SINCE("an inactive persistent request does not complete", from);
    /* a new request with the handle of a persistent one: the persistent one
     * was freed unseen */
    uint64_t a = isend(comm, 1, 4, 0x80);
    from = nevents;
    scorep_mpi_request_start(0x80);
    scorep_mpi_request_complete(0x80, 0, 0, 0, 0);
    scorep_mpi_request_complete(0x80, 0, 0, 0, 0);
    EXPECT("a new request replaces a persistent one freed unseen", from, {EV_ISEND_COMPLETE, a});
    scorep_mpi_recv_init(comm, 0x81);
    scorep_mpi_request_start(0x81);
    uint64_t r = last_id(EV_IRECV_REQUEST);
    scorep_mpi_request_free(0x81);
    from = nevents;
    scorep_mpi_request_start(0x81);
    scorep_mpi_request_complete(0x81, 0, 0, 0, 0);
    NOTHING_SINCE("a freed persistent request is gone", from);
    (void)r;
}

/* MPI_Isendrecv: the receive half takes over the send half just added, also
 * behind older requests of the same handle. */
static void check_isendrecv(scorep_comm comm)
{
    uint64_t older = isend(comm, 1, 4, 0x90);
    uint64_t send = isend(comm, 2, 8, 0x90);
    scorep_mpi_irecv_request_posted(comm, 2, 7, 64, SCOREP_RECV_ISENDRECV, 0x90);
    uint64_t recv = last_id(EV_IRECV_REQUEST);
    size_t from = nevents;
    for (int i = 0; i < 3; i++) scorep_mpi_request_complete(0x90, 2, 7, 64, 0);
    EXPECT("an isendrecv request behind another on its handle", from, {EV_ISEND_COMPLETE, older},
           {EV_ISEND_COMPLETE, send}, {EV_IRECV, recv});
}

/* An origin whose statuses the library leaves unset: the posted envelope
 * is recorded, and whatever the status says about a cancellation is not
 * believed (wrappers lend statuses they do not clear). */
static int statuses_unset(scorep_recv_origin origin)
{
    (void)origin;
    return 0;
}

static void check_unset_status_is_not_a_cancellation(scorep_comm comm)
{
    scorep_register_status_check(SCOREP_RECV_ISENDRECV_REPLACE, statuses_unset);
    uint64_t send = isend(comm, 5, 16, 0xa0);
    scorep_mpi_irecv_request_posted(comm, 5, 9, 16, SCOREP_RECV_ISENDRECV_REPLACE, 0xa0);
    uint64_t recv = last_id(EV_IRECV_REQUEST);
    size_t from = nevents;
    scorep_mpi_request_complete(0xa0, 12345, -7, 999999, 1);   /* stale memory */
    EXPECT("an unset status: no cancellation", from, {EV_ISEND_COMPLETE, send}, {EV_IRECV, recv});
    const recorded* r = &events[nevents - 1];
    if (r->peer != 5 || r->tag != 9 || r->bytes != 16) {
        failures++;
        printf("FAIL an unset status: envelope %d/%d/%llu, not the posted 5/9/16\n", r->peer, r->tag,
               (unsigned long long)r->bytes);
    }
}

/* Many handles, colliding in the table's buckets, each with two requests,
 * completed in an order mixed across handles. */
static void check_many_handles(scorep_comm comm)
{
    enum { HANDLES = 10000 };
    static uint64_t first[HANDLES], second[HANDLES];
    for (int round = 0; round < 2; round++)
        for (int h = 0; h < HANDLES; h++)
            (round ? second : first)[h] = isend(comm, 1, 1, 0x100000 + 8 * (uint64_t)h);
    int bad = 0;
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < HANDLES; k++) {
            int h = (int)(((uint64_t)k * 7919) % HANDLES);
            size_t from = nevents;
            scorep_mpi_request_complete(0x100000 + 8 * (uint64_t)h, 0, 0, 0, 0);
            uint64_t want = (round ? second : first)[h];
            if (nevents != from + 1 || events[from].kind != EV_ISEND_COMPLETE || events[from].id != want) bad++;
        }
    if (bad) {
        failures++;
        printf("FAIL many handles: %d wrong completions\n", bad);
    }
}

/* A handle never completed through a path the core sees stays bounded: at
 * 65536 queued requests the oldest is dropped. */
static void check_bound(scorep_comm comm)
{
    enum { MAX = 65536, EXTRA = 3 };
    static uint64_t ids[MAX + EXTRA];
    for (int i = 0; i < MAX + EXTRA; i++) ids[i] = isend(comm, 1, 1, 0xA0);
    size_t from = nevents;
    for (int i = 0; i < MAX + 1; i++) scorep_mpi_request_complete(0xA0, 0, 0, 0, 0);
    int ok = nevents == from + MAX;
    for (int i = 0; ok && i < MAX; i++)
        ok = events[from + i].kind == EV_ISEND_COMPLETE && events[from + i].id == ids[EXTRA + i];
    if (!ok) {
        failures++;
        printf("FAIL bound: %zu completions (want %d, the %d oldest dropped)\n", nevents - from, MAX, EXTRA);
    }
}

/* Threads share one handle: every request completes exactly once. */
#define THREADS 4
#define PER_THREAD 20000
static scorep_region thread_region;

static void* thread_body(void* arg)
{
    (void)arg;
    scorep_enter(thread_region);
    for (int i = 0; i < PER_THREAD; i++) {
        scorep_mpi_isend(SCOREP_COMM_WORLD, 0, 2, 1, 0xB0);
        if (i % 3 == 2)
            for (int k = 0; k < 3; k++) scorep_mpi_request_complete(0xB0, 0, 0, 0, 0);
    }
    scorep_exit(thread_region);
    return NULL;
}

static void check_threads(void)
{
    thread_region = scorep_region_define("queue-thread", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    size_t from = nevents;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, thread_body, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (;;) {  /* what the threads left outstanding */
        size_t before = nevents;
        scorep_mpi_request_complete(0xB0, 0, 0, 0, 0);
        if (nevents == before) break;
    }
    size_t n = nevents - from;
    uint64_t lo = UINT64_MAX, hi = 0;
    size_t sends = 0, completions = 0;
    for (size_t i = from; i < nevents; i++)
        if (events[i].kind == EV_ISEND) {
            sends++;
            if (events[i].id < lo) lo = events[i].id;
            if (events[i].id > hi) hi = events[i].id;
        }
    unsigned char* seen = calloc(hi - lo + 1, 1);
    int bad = sends != THREADS * PER_THREAD || hi - lo + 1 != sends;
    for (size_t i = from; !bad && i < nevents; i++)
        if (events[i].kind == EV_ISEND_COMPLETE) {
            completions++;
            if (events[i].id < lo || events[i].id > hi || seen[events[i].id - lo]++) bad = 1;
        }
    if (bad || completions != sends) {
        failures++;
        printf("FAIL threads: %zu events, %zu sends, %zu completions\n", n, sends, completions);
    }
    free(seen);
}

int main(void)
{
    scorep_measurement_init();
    scorep_substrates_add(&recorder);
    scorep_region nonblocking = scorep_region_define("nonblocking", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region wait = scorep_region_define("wait", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region rma = scorep_region_define("rma", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_region io = scorep_region_define("io", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    int members[3] = {0, 0, 0};
    scorep_comm comm = scorep_comm_define(42, 0, 3, members, "three");

    scorep_enter(nonblocking);
    scorep_mpi_isend(comm, 1, 5, 10, 1);
    scorep_mpi_irecv_request(comm, 2);
    scorep_mpi_send_init(comm, 2, 6, 20, 3);
    scorep_mpi_recv_init(comm, 4);
    scorep_mpi_request_start(3);
    scorep_mpi_request_start(4);
    scorep_mpi_request_test(2);
    scorep_exit(nonblocking);

    scorep_enter(wait);
    scorep_mpi_request_complete(1, 0, 0, 0, 0);
    scorep_mpi_request_complete(2, 2, 9, 30, 0);
    scorep_mpi_request_complete(3, 0, 0, 0, 0);
    scorep_mpi_request_start(3);
    scorep_mpi_request_complete(3, 0, 0, 0, 0);
    scorep_mpi_request_cancel(4);
    scorep_mpi_request_complete(4, 0, 0, 0, 1);
    scorep_mpi_request_complete(999, 1, 1, 1234, 0);
    scorep_mpi_request_complete(1, 1, 1, 1234, 0);
    scorep_mpi_request_free(3);
    scorep_mpi_request_free(4);
    scorep_mpi_request_start(3);   /* freed: ignored */
    scorep_exit(wait);

    scorep_window win = scorep_rma_window_define(7, comm, "win");
    scorep_enter(rma);
    scorep_rma_window_create(win);
    scorep_rma_put(win, 1, 100, 1);
    scorep_rma_get(win, 2, 50, 2);
    scorep_rma_atomic(win, 1, SCOREP_RMA_ATOMIC_FETCH_AND_ADD, 8, 8, 3);
    scorep_rma_op_complete(win, 1, 0);
    scorep_rma_collective_begin();
    scorep_rma_collective_end(SCOREP_COLL_BARRIER, SCOREP_RMA_SYNC_LEVEL_PROCESS_AND_MEMORY, win, SCOREP_NO_ROOT, 16, 32);
    scorep_rma_lock(win, 1, 1);
    scorep_rma_unlock(win, 1);
    scorep_rma_sync(win, -1);
    scorep_rma_group_sync(SCOREP_RMA_SYNC_LEVEL_PROCESS, win, scorep_comm_define(0, 1, 3, members, NULL));
    scorep_rma_window_free(win);
    scorep_exit(rma);

    scorep_enter(io);
    scorep_io_bytes(1000, 24);
    scorep_exit(io);
    printf("world rank of rank 2 in 'three': %d\n", scorep_comm_world_rank(comm, 2));

    scorep_region queues = scorep_region_define("queues", NULL, SCOREP_PARADIGM_USER, SCOREP_ROLE_FUNCTION, NULL);
    scorep_enter(queues);
    check_shared_handle(comm);
    check_persistent(comm);
    check_isendrecv(comm);
    check_unset_status_is_not_a_cancellation(comm);
    check_many_handles(comm);
    check_bound(comm);
    scorep_exit(queues);
    check_threads();
    if (failures) return 1;
    printf("queues: ok\n");
    return 0;
}
