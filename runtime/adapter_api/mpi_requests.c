/* The MPI adapter's requests: the handles of non-blocking and persistent
 * calls mapped to the process-unique request ids the substrates see, and
 * the receive envelope each completion records. The adapter's request
 * calls (adapter.h: scorep_mpi_isend ... scorep_mpi_request_free) land
 * here; this file keeps the table and hands the events, with their ids, to
 * the event layer (events.h). The table is shared by all threads because
 * MPI lets one thread complete another's request. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "internal.h"
#include "mpi_requests.h"

/* One entry per outstanding request, found by the adapter's handle. A handle
 * may name several outstanding requests at once: MPI libraries return one
 * shared object for requests that are complete when created (MPICH's builtin
 * "lightweight" request, Open MPI's ompi_request_empty for a small send that
 * went out at once), and a handle freed by a completion on one thread may be
 * handed out again before that thread's completion reaches the table. The
 * entries of one handle therefore form a queue in creation order: the bucket
 * chain links the oldest entry of each handle, the younger ones hang off it,
 * and a completion, test or free of the handle applies to the oldest. The
 * usual case, one entry per handle, costs what a plain chained table costs.
 *
 * Bounds: a handle holds at most REQUEST_QUEUE_MAX entries; beyond that the
 * oldest is dropped (its completion went by unseen). A persistent request is
 * a handle's only entry: it is re-armed in place by scorep_mpi_request_start,
 * and a persistent request is never complete at creation, so adding one
 * drops older entries of its handle, and adding anything to the handle of a
 * persistent entry drops that (the library freed the request unseen).
 *
 * A persistent collective (MPI_<coll>_init) is a persistent entry too, with
 * is_coll set: it holds the collective's kind, root (in peer) and bytes, and
 * each start records the collective itself; its completion records nothing,
 * since no point-to-point request events were written for it. */

typedef struct request_entry {
    scorep_request handle;
    uint64_t id;
    uint64_t send_id;     /* an MPI_Isendrecv request: the id of its send half, else 0 */
    scorep_comm comm;
    int peer, tag;        /* send: destination, tag; receive: as posted, -1 for a wildcard */
    uint64_t bytes;       /* send: message size; receive: capacity (UINT64_MAX: not given);
                             collective: bytes sent */
    uint64_t bytes_received; /* collective: bytes received */
    uint8_t is_send, persistent, active;
    uint8_t is_coll;      /* a persistent collective; coll_kind its kind, peer its root */
    uint8_t coll_kind;
    uint8_t status_wrong; /* receive: the origin's self-check found MPI's statuses wrong */
    uint32_t queued;      /* oldest entry of a handle: the handle's entries, itself included */
    struct request_entry* next;     /* oldest entry: the next handle in the bucket chain */
    struct request_entry* younger;  /* the next younger entry of the same handle */
    struct request_entry* youngest; /* oldest entry: the handle's youngest (itself if alone) */
} request_entry;

#define REQUEST_BUCKETS 4096
#ifndef REQUEST_QUEUE_MAX
#define REQUEST_QUEUE_MAX 65536
#endif
_Static_assert(REQUEST_QUEUE_MAX >= 2, "a handle must hold at least two requests");
static request_entry* request_buckets[REQUEST_BUCKETS];
static request_entry* request_free_list;
static pthread_mutex_t request_lock = PTHREAD_MUTEX_INITIALIZER;
/* MPI lets one thread complete another's request, so the table is shared by
 * all threads; it needs the lock only where MPI calls can run at the same time
 * (MPI_THREAD_MULTIPLE). Below that level MPI calls are serialised by the
 * program, which orders the table's uses too: the MPI layer then turns the
 * lock off (scorep_requests_concurrent), once, before the first request. */
static int requests_concurrent = 1;

static inline void request_lock_take(void)
{
    if (requests_concurrent) pthread_mutex_lock(&request_lock);
}

static inline void request_lock_give(void)
{
    if (requests_concurrent) pthread_mutex_unlock(&request_lock);
}

void scorep_requests_concurrent(int concurrent) { requests_concurrent = concurrent; }
static uint64_t next_request_id = 1;
static int request_queue_noted; /* the REQUEST_QUEUE_MAX note was printed */

static unsigned bucket_of(scorep_request handle)
{
    return (unsigned)((handle * 0x9E3779B97F4A7C15ull) >> 52) & (REQUEST_BUCKETS - 1);
}

/* The rest of this section: caller holds request_lock. */

/* The link to the handle's oldest entry; *link is NULL if the handle has none. */
static request_entry** request_link(scorep_request handle)
{
    request_entry** link = &request_buckets[bucket_of(handle)];
    while (*link && (*link)->handle != handle) link = &(*link)->next;
    return link;
}

static request_entry* request_find(scorep_request handle) { return *request_link(handle); }

static void request_release(request_entry* e)
{
    e->next = request_free_list;
    request_free_list = e;
}

/* Unlinks the oldest entry *link and returns it; the next younger entry of
 * its handle takes its place. */
static request_entry* request_pop(request_entry** link)
{
    request_entry* e = *link;
    request_entry* y = e->younger;
    if (y) {
        y->next = e->next;
        y->youngest = e->youngest;
        y->queued = e->queued - 1;
        *link = y;
    } else {
        *link = e->next;
    }
    return e;
}

/* Removes every entry of the handle whose oldest entry is *link. */
static void request_drop_all(request_entry** link)
{
    request_entry* e = *link;
    *link = e->next;
    while (e) {
        request_entry* y = e->younger;
        request_release(e);
        e = y;
    }
}

/* Removes the youngest entry of the handle whose oldest entry is *link and
 * returns it. */
static request_entry* request_pop_youngest(request_entry** link)
{
    request_entry* oldest = *link;
    request_entry* youngest = oldest->youngest;
    if (youngest == oldest) return request_pop(link);
    request_entry* p = oldest;
    while (p->younger != youngest) p = p->younger;
    p->younger = NULL;
    oldest->youngest = p;
    oldest->queued--;
    return youngest;
}

/* Adds a copy of *entry as the youngest of its handle under a new id and
 * returns the id. with_send: the entry is the receive half of a request
 * whose send half was just added (MPI_Isendrecv), so the youngest entry of
 * the handle; that send half leaves the table and the entry takes over its
 * id as send_id. Takes request_lock. */
static uint64_t request_add(const request_entry* entry, int with_send)
{
    int note = 0;
    scorep_request handle = entry->handle;
    uint64_t send_id = 0;
    request_lock_take();
    request_entry** link = request_link(handle);
    request_entry* oldest = *link;
    if (UNLIKELY(with_send) && oldest) {
        request_entry* send = oldest->youngest;
        if (send->is_send && send->active && !send->persistent) {
            send_id = send->id;
            request_release(request_pop_youngest(link));
            link = request_link(handle);
            oldest = *link;
        }
    }
    if (oldest && (entry->persistent || oldest->persistent)) {
        request_drop_all(link);
        oldest = NULL;
    }
    request_entry* e = request_free_list;
    if (e) request_free_list = e->next;
    else e = malloc(sizeof *e);
    *e = *entry;
    uint64_t id = e->id = next_request_id++;
    e->send_id = send_id;
    e->queued = 1;
    e->younger = NULL;
    e->youngest = e;
    if (LIKELY(!oldest)) {
        request_entry** bucket = &request_buckets[bucket_of(handle)];
        e->next = *bucket;
        *bucket = e;
    } else {
        if (oldest->queued >= REQUEST_QUEUE_MAX) {
            request_release(request_pop(link));
            oldest = *link;
            note = !request_queue_noted;
            request_queue_noted = 1;
        }
        e->next = NULL;
        oldest->youngest->younger = e;
        oldest->youngest = e;
        oldest->queued++;
    }
    request_lock_give();
    if (UNLIKELY(note))
        scorep_verbose("request handle 0x%llx: more than %d requests outstanding at once; the oldest is "
                       "dropped without a completion (noted once)",
                       (unsigned long long)handle, REQUEST_QUEUE_MAX);
    return id;
}

static request_entry send_entry(scorep_comm comm, int peer, int tag, uint64_t bytes,
                                scorep_request request, int persistent)
{
    return (request_entry){.handle = request, .comm = comm, .peer = peer, .tag = tag, .bytes = bytes,
                           .is_send = 1, .persistent = (uint8_t)persistent, .active = !persistent};
}

/* A receive without a posted envelope: the status always decides. */
static request_entry receive_entry(scorep_comm comm, scorep_request request, int persistent)
{
    return (request_entry){.handle = request, .comm = comm, .peer = -1, .tag = -1, .bytes = UINT64_MAX,
                           .persistent = (uint8_t)persistent, .active = !persistent};
}

void scorep_mpi_isend(scorep_comm comm, int peer, int tag, uint64_t bytes, scorep_request request)
{
    INSIDE_MEASUREMENT;
    scorep_location* loc = scorep_events_location();
    if (UNLIKELY(!loc)) return;
    request_entry entry = send_entry(comm, peer, tag, bytes, request, 0);
    uint64_t id = request_add(&entry, 0);
    scorep_events_mpi_isend(loc, comm, peer, tag, bytes, id);
}

void scorep_mpi_irecv_request(scorep_comm comm, scorep_request request)
{
    INSIDE_MEASUREMENT;
    scorep_location* loc = scorep_events_location();
    if (UNLIKELY(!loc)) return;
    request_entry entry = receive_entry(comm, request, 0);
    uint64_t id = request_add(&entry, 0);
    scorep_events_mpi_irecv_request(loc, id);
}

/* ---- does MPI set the status of receive requests of an origin? ---- */

enum { VERDICT_UNASKED = 0, VERDICT_TRUSTED, VERDICT_WRONG };
static const char* const origin_names[SCOREP_RECV_ORIGIN_COUNT_] = {
    "MPI_Irecv", "MPI_Isendrecv", "MPI_Isendrecv (to MPI_PROC_NULL)",
    "MPI_Isendrecv_replace", "MPI_Isendrecv_replace (to MPI_PROC_NULL)"};
static scorep_status_check status_checks[SCOREP_RECV_ORIGIN_COUNT_];
static uint8_t status_verdicts[SCOREP_RECV_ORIGIN_COUNT_];
static pthread_mutex_t status_check_lock = PTHREAD_MUTEX_INITIALIZER;

void scorep_register_status_check(scorep_recv_origin origin, scorep_status_check check)
{
    if ((unsigned)origin < SCOREP_RECV_ORIGIN_COUNT_) status_checks[origin] = check;
}

/* Asks the origin's check once (lazily: programs that never use the origin
 * pay nothing); until then and without a check, statuses are trusted. */
static int status_known_wrong(scorep_recv_origin origin)
{
    if ((unsigned)origin >= SCOREP_RECV_ORIGIN_COUNT_) return 0;
    uint8_t verdict = __atomic_load_n(&status_verdicts[origin], __ATOMIC_ACQUIRE);
    if (LIKELY(verdict != VERDICT_UNASKED)) return verdict == VERDICT_WRONG;
    pthread_mutex_lock(&status_check_lock);
    verdict = status_verdicts[origin];
    if (verdict == VERDICT_UNASKED) {
        int answer = status_checks[origin] ? status_checks[origin](origin) : 1;
        verdict = answer == 0 ? VERDICT_WRONG : VERDICT_TRUSTED;
        if (status_checks[origin])
            scorep_verbose("%s: the MPI library %s the status of its requests%s", origin_names[origin],
                           answer == 0 ? "does not set" : answer > 0 ? "sets" : "may set",
                           answer == 0 ? "; receives record the posted envelope" : "");
        __atomic_store_n(&status_verdicts[origin], verdict, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&status_check_lock);
    return verdict == VERDICT_WRONG;
}

void scorep_mpi_irecv_request_posted(scorep_comm comm, int source, int tag, uint64_t capacity,
                                     scorep_recv_origin origin, scorep_request request)
{
    if (!scorep_events_location()) return;
    /* the origin's self-check (at its first request) runs MPI calls: before the event */
    int status_wrong = status_known_wrong(origin);
    INSIDE_MEASUREMENT;
    scorep_location* loc = scorep_events_location();
    if (UNLIKELY(!loc)) return;
    request_entry entry = receive_entry(comm, request, 0);
    entry.peer = source < 0 ? -1 : source;
    entry.tag = tag < 0 ? -1 : tag;
    entry.bytes = capacity;
    entry.status_wrong = (uint8_t)status_wrong;
    int with_send = origin == SCOREP_RECV_ISENDRECV || origin == SCOREP_RECV_ISENDRECV_REPLACE;
    uint64_t id = request_add(&entry, with_send);
    scorep_events_mpi_irecv_request(loc, id);
}

void scorep_mpi_send_init(scorep_comm comm, int peer, int tag, uint64_t bytes, scorep_request request)
{
    if (!scorep_events_location()) return;
    INSIDE_MEASUREMENT;
    request_entry entry = send_entry(comm, peer, tag, bytes, request, 1);
    request_add(&entry, 0);
}

void scorep_mpi_recv_init(scorep_comm comm, scorep_request request)
{
    if (!scorep_events_location()) return;
    INSIDE_MEASUREMENT;
    request_entry entry = receive_entry(comm, request, 1);
    request_add(&entry, 0);
}

void scorep_mpi_collective_init(scorep_collective_kind kind, scorep_comm comm, int root, uint64_t bytes_sent,
                                uint64_t bytes_received, scorep_request request)
{
    if (!scorep_events_location()) return;
    INSIDE_MEASUREMENT;
    request_entry entry = {.handle = request, .comm = comm, .peer = root, .tag = -1, .bytes = bytes_sent,
                           .bytes_received = bytes_received, .persistent = 1, .is_coll = 1,
                           .coll_kind = (uint8_t)kind};
    request_add(&entry, 0);
}

void scorep_mpi_request_start(scorep_request request)
{
    if (!scorep_events_location()) return;
    INSIDE_MEASUREMENT;
    request_lock_take();
    request_entry* e = request_find(request);
    if (!e || !e->persistent) {
        request_lock_give();
        return;
    }
    e->active = 1;
    if (!e->is_coll) e->id = next_request_id++;
    request_entry copy = *e;
    request_lock_give();
    if (copy.is_coll) {
        /* like a non-blocking collective, recorded where it starts; a
         * neighbourhood kind has an end only (scorep_mpi_collective_end) */
        if (copy.coll_kind < SCOREP_COLL_OTF2_END_) scorep_mpi_collective_begin();
        scorep_mpi_collective_end((scorep_collective_kind)copy.coll_kind, copy.comm, copy.peer, copy.bytes,
                                  copy.bytes_received);
        return;
    }
    scorep_location* loc = scorep_events_location();
    if (UNLIKELY(!loc)) return;
    if (copy.is_send)
        scorep_events_mpi_isend(loc, copy.comm, copy.peer, copy.tag, copy.bytes, copy.id);
    else
        scorep_events_mpi_irecv_request(loc, copy.id);
}

/* The envelope of a completed receive: the status's, unless it cannot be
 * right (the origin's statuses are known to be wrong, or it contradicts the
 * posted source, tag or capacity); then the posted one. A wildcard can only
 * come from the status: with a wrong status it stays unknown (-1). */
static void receive_envelope(const request_entry* e, int* source, int* tag, uint64_t* bytes)
{
    if (!e->status_wrong && (e->peer < 0 || *source == e->peer) && (e->tag < 0 || *tag == e->tag)
        && *bytes <= e->bytes)
        return;
    *source = e->peer;
    *tag = e->tag;
    *bytes = e->bytes;
}

/* A completion: the envelope and cancelled flag come either from the caller
 * (fields) or from a status object decoded here, after the table lookup, and
 * only for a request the table knows (statuses of unknown handles, e.g. to
 * MPI_PROC_NULL, are not read at all). */
static void request_complete(scorep_request request, const scorep_status_fields* fields, const void* status,
                             scorep_language language)
{
    /* no event for a request the table does not know (a file request's, one
     * to MPI_PROC_NULL) */
    INSIDE_MEASUREMENT;
    scorep_location* loc = scorep_events_location();
    if (UNLIKELY(!loc)) return;
    request_lock_take();
    request_entry** link = request_link(request);
    request_entry* e = *link;
    if (!e || !e->active) {
        request_lock_give();
        return;
    }
    request_entry copy = *e;
    if (e->persistent) e->active = 0;
    else request_release(request_pop(link));
    request_lock_give();
    if (copy.is_coll) return; /* recorded at its start; no point-to-point events */
    scorep_status_fields decoded;
    if (!fields) {
        if (UNLIKELY(scorep_decode_status(status, language, &decoded) != 0)) {
            static int warned;
            if (!warned) {
                warned = 1;
                scorep_warning("no status decoder for language %d: receive envelopes are unknown", (int)language);
            }
        }
        fields = &decoded;
    }
    int source = fields->source, tag = fields->tag;
    uint64_t bytes = fields->bytes;
    /* a status the library is known to leave unset tells nothing, not even
     * a cancellation (wrappers lend statuses they do not clear) */
    if (fields->cancelled && !copy.status_wrong) {
        scorep_events_mpi_request_cancelled(loc, copy.send_id, copy.id);
    } else if (copy.is_send) {
        scorep_events_mpi_isend_complete(loc, copy.id);
    } else {
        receive_envelope(&copy, &source, &tag, &bytes);
        scorep_events_mpi_irecv(loc, copy.send_id, copy.comm, source, tag, bytes, copy.id);
    }
}

void scorep_mpi_request_complete(scorep_request request, int source, int tag, uint64_t bytes, int cancelled)
{
    scorep_status_fields fields = {.source = source, .tag = tag, .bytes = bytes, .cancelled = cancelled};
    request_complete(request, &fields, NULL, SCOREP_LANGUAGE_C);
}

static scorep_status_decoder status_decoders[SCOREP_LANGUAGE_COUNT_];

void scorep_register_status_decoder(scorep_language language, scorep_status_decoder decoder)
{
    if ((unsigned)language < SCOREP_LANGUAGE_COUNT_) status_decoders[language] = decoder;
}

int scorep_decode_status(const void* status, scorep_language language, scorep_status_fields* out)
{
    memset(out, 0, sizeof *out);
    out->source = -1;
    if ((unsigned)language >= SCOREP_LANGUAGE_COUNT_ || !status_decoders[language] || !status) return -1;
    return status_decoders[language](status, out);
}

void scorep_mpi_request_complete_status(scorep_request request, const void* status, scorep_language language)
{
    request_complete(request, NULL, status, language);
}

void scorep_mpi_request_test(scorep_request request)
{
    INSIDE_MEASUREMENT;
    scorep_location* loc = scorep_events_location();
    if (UNLIKELY(!loc)) return;
    request_lock_take();
    request_entry* e = request_find(request);
    uint64_t id = e && e->active && !e->is_coll ? e->id : 0;
    request_lock_give();
    if (id) scorep_events_mpi_request_test(loc, id);
}

void scorep_mpi_request_cancel(scorep_request request)
{
    (void)request; /* the cancellation shows at completion (cancelled flag of the status) */
}

void scorep_mpi_request_free(scorep_request request)
{
    request_lock_take();
    request_entry** link = request_link(request);
    if (*link) request_release(request_pop(link));
    request_lock_give();
}
