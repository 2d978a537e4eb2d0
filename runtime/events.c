/* The event layer: adapter API event functions. Each takes a timestamp,
 * finds the calling thread's location and hands the event to every active
 * substrate. No locks here except for the request table, which is shared by
 * all threads because MPI lets one thread complete another's request. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "io_files.h"
#include "profile_events.h"
#include "timer.h"

__thread int scorep_thread_event_generation_off TLS_FAST;

int scorep_event_generation_is_on_fn(void) { return scorep_event_generation_is_on(); }
void scorep_event_generation_off_fn(void) { scorep_event_generation_off(); }
void scorep_event_generation_on_fn(void) { scorep_event_generation_on(); }

/* The recording gate: open while the measurement runs. Only the life cycle
 * (lifecycle.c) opens and closes it; this layer never starts or ends the
 * measurement itself: an event before the start or after the end is not
 * recorded. */
volatile int scorep_events_recording;
static void decide_short_form(void);
void scorep_events_set_recording(int on)
{
    __atomic_store_n(&scorep_events_recording, on, __ATOMIC_RELEASE);
    decide_short_form();
}
scorep_region scorep_flush_region = SCOREP_INVALID_ID;
scorep_region scorep_program_region = SCOREP_INVALID_ID;
int scorep_substrate_count_active;
const scorep_substrate* scorep_substrates[SCOREP_MAX_SUBSTRATES];

/* enter/leave are the hottest events: their callbacks are kept in flat arrays */
static int enter_count, leave_count;
/* The profile is the only substrate: enter and exit update its call-path
 * tree directly (profile_events.h), without the flat lists' indirect calls
 * (docs/PERFORMANCE.md, "System adapters"). profile_active: it is one of them. */
static int profile_only, profile_active;
static void (*enter_fns[SCOREP_MAX_SUBSTRATES])(scorep_location*, uint64_t, scorep_region);
static void (*leave_fns[SCOREP_MAX_SUBSTRATES])(scorep_location*, uint64_t, scorep_region);

/* So are the point-to-point events: per callback the substrates that have it,
 * without the table walk and NULL test of DISPATCH (DISPATCH_FLAT) */
#define FLAT_CALLBACKS(X) \
    X(mpi_send) X(mpi_recv) X(mpi_isend) X(mpi_isend_complete) X(mpi_irecv_request) X(mpi_irecv) \
    X(mpi_collective_begin) X(mpi_collective_end) X(rma_put) X(rma_get) X(rma_atomic)          \
    X(rma_op_complete) X(parameter_int) X(io_bytes) X(io_operation_begin) X(io_operation_complete) \
    X(attribute)
#define FLAT_DECLARE(callback)                                                       \
    static struct {                                                                  \
        int count;                                                                   \
        __typeof__(((scorep_substrate*)0)->callback) fns[SCOREP_MAX_SUBSTRATES];     \
    } flat_##callback;
FLAT_CALLBACKS(FLAT_DECLARE)
#define FLAT_FILL(callback) \
    if (s->callback) flat_##callback.fns[flat_##callback.count++] = s->callback;
#define FLAT_RESET(callback) flat_##callback.count = 0;
/* parameter_int of the substrates that take the target parameter of the
 * scorep_rma_*_at_call_start events (not the trace: its RMA records carry
 * the target) */
static struct {
    int count;
    __typeof__(((scorep_substrate*)0)->parameter_int) fns[SCOREP_MAX_SUBSTRATES];
} flat_target_parameter;

#define STACK_MAX 1024
typedef struct event_state {
    uint32_t depth;
    /* the last event read the clock at the end of an MPI call's work (a
     * receive, a request completion): the exit that follows takes its time */
    uint32_t exit_at_last;
    uint64_t event_count;
    scorep_region stack[STACK_MAX];
} event_state;

/* Whether an active substrate records the time of every event (the trace). */
static int events_need_time;
int scorep_io_operations_recorded;
int scorep_io_operation_begin_recorded;

void scorep_events_activate_substrates(void)
{
    enter_count = leave_count = 0;
    events_need_time = 0;
    profile_active = 0;
    FLAT_CALLBACKS(FLAT_RESET)
    flat_target_parameter.count = 0;
    for (int i = 0; i < scorep_substrate_count_active; i++) {
        const scorep_substrate* s = scorep_substrates[i];
        events_need_time |= s->needs_event_times;
        profile_active |= s == scorep_profile_substrate();
        if (s->enter) enter_fns[enter_count++] = s->enter;
        if (s->leave) leave_fns[leave_count++] = s->leave;
        FLAT_CALLBACKS(FLAT_FILL)
        if (s->parameter_int && !s->rma_events_carry_target)
            flat_target_parameter.fns[flat_target_parameter.count++] = s->parameter_int;
    }
    /* the trace records the operations; the profile's per-file totals
     * (io_files.c) need their handles too */
    profile_only = profile_active && scorep_substrate_count_active == 1;
    decide_short_form();
    scorep_io_operation_begin_recorded = flat_io_operation_begin.count > 0;
    scorep_io_operations_recorded = flat_io_operation_begin.count + flat_io_operation_complete.count > 0
                                    || scorep_cfg.enable_profiling;
}

void scorep_events_location_created(scorep_location* loc)
{
    loc->event_private = scorep_arena_alloc(sizeof(event_state));
    for (int i = 0; i < scorep_substrate_count_active; i++)
        if (scorep_substrates[i]->location_created) scorep_substrates[i]->location_created(loc);
}

uint32_t scorep_location_open_regions(const scorep_location* loc, const scorep_region** regions)
{
    const event_state* es = loc->event_private;
    *regions = es ? es->stack : NULL;
    if (!es) return 0;
    return es->depth < STACK_MAX ? es->depth : STACK_MAX;
}

uint64_t scorep_location_event_count(const scorep_location* loc)
{
    return loc->event_private ? ((const event_state*)loc->event_private)->event_count : 0;
}

static __attribute__((noinline)) scorep_location* location_slow(void)
{
    if (!scorep_events_recording) return NULL;
    return scorep_tls_location ? scorep_tls_location : scorep_location_create_for_thread();
}

/* A created thread's start routine (the thread adapter's trampoline): its
 * region is entered when the thread records its next event, at the time
 * the routine was called, and not at all if that event is the enter of the
 * routine's own instrumented region. So a thread's tree begins with its
 * first instrumented region, as in Score-P, and a start routine nothing
 * instruments (libgomp's, Python's) still names the thread's calls. Until
 * then the thread's location pointer is NULL, so that its next event takes
 * the slow path, which alone looks here: the fast path pays nothing. */
enum { START_NONE, START_WAITING, START_ENTERED, START_OWN_REGION };
static __thread struct {
    scorep_location* loc;   /* while waiting */
    scorep_region region;
    uint64_t ticks;
    int state;
} thread_start TLS_FAST;

static inline __attribute__((always_inline)) void enter_at(scorep_location* loc, uint64_t t, scorep_region region);

/* the start routine's own region: a compiler region whose symbol is the
 * name the thread adapter found for the routine */
static int start_routine_region(scorep_region start, scorep_region entered)
{
    const scorep_region_def* s = scorep_region_get(start);
    const scorep_region_def* e = entered == SCOREP_INVALID_ID ? NULL : scorep_region_get(entered);
    return s && e && e->paradigm == SCOREP_PARADIGM_COMPILER &&
           strcmp(e->canonical ? e->canonical : e->name, s->name) == 0;
}

scorep_location* scorep_events_thread_start_resume(scorep_region entering)
{
    if (LIKELY(thread_start.state != START_WAITING)) return NULL;
    scorep_location* loc = thread_start.loc;
    thread_start.loc = NULL;
    scorep_tls_location = loc;
    if (start_routine_region(thread_start.region, entering)) {
        thread_start.state = START_OWN_REGION;
    } else {
        thread_start.state = START_ENTERED;
        scorep_region region = thread_start.region;
        if (region < SCOREP_MAX_REGIONS && !scorep_region_filtered_flags[region]) {
            int was_off = scorep_inside_begin();
            enter_at(loc, thread_start.ticks, region);
            scorep_inside_end(was_off);
        }
    }
    return loc;
}

scorep_location* scorep_events_thread_start_location(void) { return thread_start.loc; }

void scorep_enter_thread_start(scorep_region region)
{
    scorep_location* loc = scorep_tls_location;
    if (!loc || !scorep_events_recording) return;
    thread_start.loc = loc;
    thread_start.region = region;
    thread_start.ticks = scorep_timer_read();
    loc->last_ticks = thread_start.ticks;
    thread_start.state = START_WAITING;
    scorep_tls_location = NULL;
}

void scorep_exit_thread_start(scorep_region region)
{
    scorep_events_thread_start_resume(SCOREP_INVALID_ID);
    int entered = thread_start.state == START_ENTERED;
    thread_start.state = START_NONE;
    if (entered) scorep_exit(region);
}

static inline scorep_location* current(void)
{
    scorep_location* loc = scorep_tls_location;
    if (UNLIKELY(!loc || !scorep_events_recording)) return location_slow();
    return loc;
}

/* Every enter and exit, whatever the substrates and the timer. enter_at:
 * the enter of a region the caller found not filtered, at time t. */
static inline __attribute__((always_inline)) void enter_at(scorep_location* loc, uint64_t t, scorep_region region)
{
    event_state* es = loc->event_private;
    es->exit_at_last = 0;
    if (LIKELY(es->depth < STACK_MAX)) es->stack[es->depth] = region;
    es->depth++;
    es->event_count++;
    loc->last_ticks = t;
    if (LIKELY(profile_only))
        scorep_profile_enter_on(loc, t, region);
    else
        for (int i = 0; i < enter_count; i++) enter_fns[i](loc, t, region);
}

static inline __attribute__((always_inline)) void enter_on(scorep_location* loc, scorep_region region)
{
    if (UNLIKELY(region >= SCOREP_MAX_REGIONS || scorep_region_filtered_flags[region])) return;
    enter_at(loc, scorep_timer_read(), region);
}

static inline __attribute__((always_inline)) void exit_general_body(scorep_location* loc, scorep_region region)
{
    if (UNLIKELY(region >= SCOREP_MAX_REGIONS || scorep_region_filtered_flags[region])) return;
    event_state* es = loc->event_private;
    /* right after a receive or completion that read the clock, its time: the
     * call's work ended there, and the trace saves a clock read and an OTF2
     * timestamp (docs/PERFORMANCE.md) */
    uint64_t t = es->exit_at_last ? loc->last_ticks : scorep_timer_read();
    es->exit_at_last = 0;
    /* nothing open but the program region: an exit without its enter must
     * not end the program */
    if (UNLIKELY(es->depth <= 1) &&
        (es->depth == 0 || (es->stack[0] == scorep_program_region && region != scorep_program_region))) {
        static int warned;
        if (!warned) {
            warned = 1;
            scorep_warning("exit from region %u without a matching enter; ignored", region);
        }
        return;
    }
    es->depth--;
    es->event_count++;
    loc->last_ticks = t;
    if (LIKELY(profile_only))
        scorep_profile_leave_on(loc, t, region);
    else
        for (int i = 0; i < leave_count; i++) leave_fns[i](loc, t, region);
}

static __attribute__((noinline)) void exit_general(scorep_location* loc, scorep_region region)
{
    INSIDE_MEASUREMENT;
    exit_general_body(loc, region);
}

/* The short form of an enter and an exit (the profile the only substrate,
 * the TSC the timer, the location there and recording): the same work as
 * enter_on / exit_general, written so that its only calls are tail
 * calls to them or to the profile's rare cases. A function that calls and
 * goes on saves and restores registers around its body; these, a tenth of
 * a recorded malloc/free pair's instructions, are left out this way
 * (docs/PERFORMANCE.md, "System adapters"). */
static __attribute__((noinline)) void enter_profile_other(scorep_location* loc, uint64_t t, scorep_region region)
{
    INSIDE_MEASUREMENT;   /* a new node may be made and linked */
    scorep_profile_enter_on(loc, t, region);
}

/* the way of the other substrates (the trace): one jump from scorep_enter */
static __attribute__((noinline)) void enter_current(scorep_region region)
{
    INSIDE_MEASUREMENT;
    if (UNLIKELY(thread_start.state == START_WAITING) && scorep_events_recording)
        scorep_events_thread_start_resume(region);
    scorep_location* loc = current();
    if (loc) enter_on(loc, region);
}

static __attribute__((noinline)) void exit_current(scorep_region region)
{
    scorep_location* loc = current();
    if (loc) exit_general(loc, region);
}

/* Whether events take the short form: recording, the profile the only
 * substrate, the TSC the timer. One flag, so that the event path tests one
 * load instead of three; decided when recording starts or stops and when
 * the substrates are chosen (the timer is chosen before either). */
static volatile int short_events;
static void decide_short_form(void)
{
#ifdef SCOREP_HAVE_TSC
    short_events = scorep_events_recording && profile_only && scorep_timer_active == SCOREP_TIMER_TSC;
#else
    short_events = 0;
#endif
}

/* the clock of the short form: the TSC, without scorep_timer_read's test */
static inline uint64_t short_form_clock(void)
{
#ifdef SCOREP_HAVE_TSC
    return __rdtsc();
#else
    return scorep_timer_read();
#endif
}

void scorep_enter(scorep_region region)
{
    scorep_location* loc = scorep_tls_location;
    /* the other substrates' way (the trace) first, after one load */
    if (UNLIKELY(!short_events || !loc)) {
        enter_current(region);
        return;
    }
    if (UNLIKELY(region >= SCOREP_MAX_REGIONS || scorep_region_filtered_flags[region])) return;
    uint64_t t = short_form_clock();
    event_state* es = loc->event_private;
    es->exit_at_last = 0;
    uint32_t depth = es->depth;
    if (LIKELY(depth < STACK_MAX)) es->stack[depth] = region;
    es->depth = depth + 1;
    es->event_count++;
    loc->last_ticks = t;
    /* scorep_profile_enter_on, the two cached children inline */
    scorep_profile_node* parent = loc->profile_current;
    scorep_profile_node** cache = parent->cached_child;
    scorep_profile_node* c = cache[0];
    if (UNLIKELY(!scorep_profile_is_child_for(c, region))) {
        /* the second cached child: used where it is, no swap (two
         * children called in turn, malloc and free, then hit without a
         * store into the parent; a new child still enters in front) */
        c = cache[1];
        if (UNLIKELY(!scorep_profile_is_child_for(c, region))) {
            enter_profile_other(loc, t, region);
            return;
        }
    }
    c->enter_ticks = t;
    loc->profile_current = c;
}

/* The exit of region on loc in the short form (short_events is set):
 * scorep_exit's work, also the end of a recorded allocation or free. */
static inline __attribute__((always_inline)) void exit_on(scorep_location* loc, scorep_region region)
{
    event_state* es = loc->event_private;
    if (UNLIKELY(es->depth == 0)) {
        exit_general(loc, region);
        return;
    }
    /* the innermost node this region's: then the region is not filtered (a
     * filtered region never has a node: its flag is set when it is defined,
     * before any enter), so its flag need not be read; anything else takes
     * the general way, which tests the flag and leaves through the
     * profile's slow leave as before (the root, the only node without a
     * parent, is never left) */
    scorep_profile_node* cur = loc->profile_current;
    if (UNLIKELY(cur->region != region || cur->parameter != SCOREP_INVALID_ID || cur->parent == NULL)) {
        exit_general(loc, region);
        return;
    }
    uint64_t t = es->exit_at_last ? loc->last_ticks : short_form_clock();
    es->exit_at_last = 0;
    es->depth--;
    es->event_count++;
    loc->last_ticks = t;
    /* the node left before its visit is counted: a fatal signal in between
     * loses this one visit rather than closing it twice */
    loc->profile_current = cur->parent;
    scorep_profile_close_visit(cur, t);
}

void scorep_exit(scorep_region region)
{
    scorep_location* loc = scorep_tls_location;
    if (UNLIKELY(!short_events || !loc)) {
        exit_current(region);
        return;
    }
    exit_on(loc, region);
}

/* The profile alone: its own tree says what is open. A fatal signal may
 * stop a thread in the short form between the region stack's store and the
 * node's (the short form goes without the "inside" flag that would defer
 * it); closed by the stack, the profile was left one level off: a mismatch
 * warning, a visit closed twice and the outermost one never. */
static void finish_open_nodes(scorep_location* loc, uint64_t t)
{
    const scorep_profile_node* root = scorep_profile_root(loc);
    for (const scorep_profile_node* cur = loc->profile_current; cur != root; cur = loc->profile_current) {
        scorep_profile_leave_slow(loc, scorep_profile_state(loc), t, SCOREP_INVALID_ID);
        if (loc->profile_current == cur) break;   /* parameter nodes right under the root: closed, kept */
    }
    ((event_state*)loc->event_private)->depth = 0;
}

/* Leaves every region still open, newest first, at time t. Runs at
 * finalisation from the finalising thread, when no other thread records,
 * or from the handler of a fatal signal on the thread it stopped. */
void scorep_events_finish_open_regions(uint64_t t)
{
    for (scorep_location* loc = scorep_location_list(); loc; loc = loc->next) {
        event_state* es = loc->event_private;
        if (!es) continue;
        uint64_t tl = t > loc->last_ticks ? t : loc->last_ticks;
        /* each leave an event of the location, as the trace records it
         * (the program region's is its ProgramEnd) */
        if (profile_only) {
            es->event_count += es->depth;
            finish_open_nodes(loc, tl);
            continue;
        }
        while (es->depth > 0) {
            es->depth--;
            es->event_count++;
            scorep_region region = es->depth < STACK_MAX ? es->stack[es->depth] : SCOREP_INVALID_ID;
            for (int i = 0; i < leave_count; i++) leave_fns[i](loc, tl, region);
        }
    }
}

/* The clock is the largest cost of an event, so it is read only where a
 * time is recorded:
 *   EVENT_BEGIN           the time of the event, read only if a substrate
 *                         records it (with the profile alone, t is the last
 *                         timestamp, which the profile does not use here)
 *   EVENT_BEGIN_TIMED     always read (the profile needs it: parameters)
 *   EVENT_BEGIN_AT_START  events that happen as an MPI call starts (a send or
 *                         receive is posted, a collective begins): stamped
 *                         with the location's last event, normally the enter
 *                         of that call, a few instructions earlier
 * and each of them counts one event of the location; the _UNCOUNTED forms
 * leave the count to the caller, which knows how many records it makes. */
#define EVENT_BEGIN_UNCOUNTED(read_clock)                           \
    INSIDE_MEASUREMENT;                                             \
    scorep_location* loc = current();                               \
    if (UNLIKELY(!loc)) return;                                     \
    uint64_t t = (read_clock) ? scorep_timer_read() : loc->last_ticks; \
    loc->last_ticks = t
/* A location's event count is the number of records the trace has (or
 * would have) on it: what only the profile takes (a transfer's bytes, an
 * RMA call's target parameter) is not counted. */
#define EVENT_BEGIN_STAMPED(read_clock)                             \
    EVENT_BEGIN_UNCOUNTED(read_clock);                              \
    ((event_state*)loc->event_private)->event_count++
#define EVENT_BEGIN() EVENT_BEGIN_STAMPED(events_need_time)
/* an event at the end of an MPI call's work (scorep_mpi_recv, a request
 * completion): with a clock read, the call's exit takes the same time */
#define EVENT_BEGIN_AT_END_UNCOUNTED()                              \
    EVENT_BEGIN_UNCOUNTED(events_need_time);                        \
    ((event_state*)loc->event_private)->exit_at_last = (uint32_t)events_need_time
#define EVENT_BEGIN_AT_END()                                        \
    EVENT_BEGIN_AT_END_UNCOUNTED();                                 \
    ((event_state*)loc->event_private)->event_count++
#define EVENT_BEGIN_TIMED() EVENT_BEGIN_STAMPED(1)
#define EVENT_BEGIN_AT_START() EVENT_BEGIN_STAMPED(0)

#define DISPATCH(callback, ...)                                          \
    for (int i_ = 0; i_ < scorep_substrate_count_active; i_++) {         \
        const scorep_substrate* s_ = scorep_substrates[i_];              \
        if (s_->callback) s_->callback(loc, t, __VA_ARGS__);             \
    }
#define DISPATCH_FLAT(callback, ...)                                     \
    for (int i_ = 0; i_ < flat_##callback.count; i_++)                  \
        flat_##callback.fns[i_](loc, t, __VA_ARGS__);
#define DISPATCH0_FLAT(callback)                                         \
    for (int i_ = 0; i_ < flat_##callback.count; i_++)                  \
        flat_##callback.fns[i_](loc, t);
#define DISPATCH0(callback)                                              \
    for (int i_ = 0; i_ < scorep_substrate_count_active; i_++) {         \
        const scorep_substrate* s_ = scorep_substrates[i_];              \
        if (s_->callback) s_->callback(loc, t);                          \
    }

/* ---- point-to-point ---- */

void scorep_mpi_send(scorep_comm comm, int peer, int tag, uint64_t bytes)
{
    EVENT_BEGIN_AT_START();
    DISPATCH_FLAT(mpi_send, comm, peer, tag, bytes);
}

void scorep_mpi_recv(scorep_comm comm, int peer, int tag, uint64_t bytes)
{
    EVENT_BEGIN_AT_END();
    DISPATCH_FLAT(mpi_recv, comm, peer, tag, bytes);
}

/* ---- request table ----
 *
 * One entry per outstanding request, found by the adapter's handle. A handle
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
    EVENT_BEGIN_AT_START();
    request_entry entry = send_entry(comm, peer, tag, bytes, request, 0);
    uint64_t id = request_add(&entry, 0);
    DISPATCH_FLAT(mpi_isend, comm, peer, tag, bytes, id);
}

void scorep_mpi_irecv_request(scorep_comm comm, scorep_request request)
{
    EVENT_BEGIN_AT_START();
    request_entry entry = receive_entry(comm, request, 0);
    uint64_t id = request_add(&entry, 0);
    DISPATCH_FLAT(mpi_irecv_request, id);
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
    if (!current()) return;
    /* the origin's self-check (at its first request) runs MPI calls: before the event */
    int status_wrong = status_known_wrong(origin);
    EVENT_BEGIN_AT_START();
    request_entry entry = receive_entry(comm, request, 0);
    entry.peer = source < 0 ? -1 : source;
    entry.tag = tag < 0 ? -1 : tag;
    entry.bytes = capacity;
    entry.status_wrong = (uint8_t)status_wrong;
    int with_send = origin == SCOREP_RECV_ISENDRECV || origin == SCOREP_RECV_ISENDRECV_REPLACE;
    uint64_t id = request_add(&entry, with_send);
    DISPATCH_FLAT(mpi_irecv_request, id);
}

void scorep_mpi_send_init(scorep_comm comm, int peer, int tag, uint64_t bytes, scorep_request request)
{
    if (!current()) return;
    request_entry entry = send_entry(comm, peer, tag, bytes, request, 1);
    request_add(&entry, 0);
}

void scorep_mpi_recv_init(scorep_comm comm, scorep_request request)
{
    if (!current()) return;
    request_entry entry = receive_entry(comm, request, 1);
    request_add(&entry, 0);
}

void scorep_mpi_collective_init(scorep_collective_kind kind, scorep_comm comm, int root, uint64_t bytes_sent,
                                uint64_t bytes_received, scorep_request request)
{
    if (!current()) return;
    request_entry entry = {.handle = request, .comm = comm, .peer = root, .tag = -1, .bytes = bytes_sent,
                           .bytes_received = bytes_received, .persistent = 1, .is_coll = 1,
                           .coll_kind = (uint8_t)kind};
    request_add(&entry, 0);
}

void scorep_mpi_request_start(scorep_request request)
{
    if (!current()) return;
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
    EVENT_BEGIN_AT_START();
    if (copy.is_send)
        DISPATCH_FLAT(mpi_isend, copy.comm, copy.peer, copy.tag, copy.bytes, copy.id)
    else
        DISPATCH_FLAT(mpi_irecv_request, copy.id)
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
    /* counted below by the records it makes: none for a request the table
     * does not know (a file request's, one to MPI_PROC_NULL) */
    EVENT_BEGIN_AT_END_UNCOUNTED();
    event_state* es = loc->event_private;
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
        es->event_count += 1 + (copy.send_id != 0);
        if (copy.send_id) DISPATCH(mpi_request_cancelled, copy.send_id)
        DISPATCH(mpi_request_cancelled, copy.id)
    } else if (copy.is_send) {
        es->event_count++;
        DISPATCH_FLAT(mpi_isend_complete, copy.id)
    } else {
        es->event_count += 1 + (copy.send_id != 0);
        if (copy.send_id) DISPATCH_FLAT(mpi_isend_complete, copy.send_id)
        receive_envelope(&copy, &source, &tag, &bytes);
        DISPATCH_FLAT(mpi_irecv, copy.comm, source, tag, bytes, copy.id)
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
    EVENT_BEGIN_UNCOUNTED(events_need_time);
    request_lock_take();
    request_entry* e = request_find(request);
    uint64_t id = e && e->active && !e->is_coll ? e->id : 0;
    request_lock_give();
    if (id) {
        ((event_state*)loc->event_private)->event_count++;
        DISPATCH(mpi_request_test, id);
    }
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

/* ---- collectives ---- */

void scorep_mpi_collective_begin(void)
{
    EVENT_BEGIN_AT_START();
    DISPATCH0_FLAT(mpi_collective_begin);
}

/* right before the call's exit, which takes this event's time */
void scorep_mpi_collective_end(scorep_collective_kind kind, scorep_comm comm, int root, uint64_t bytes_sent,
                               uint64_t bytes_received)
{
    EVENT_BEGIN_AT_END();
    /* a kind without an OTF2 collective op has no record in the trace */
    if (UNLIKELY((unsigned)kind >= (unsigned)SCOREP_COLL_OTF2_END_))
        ((event_state*)loc->event_private)->event_count--;
    DISPATCH_FLAT(mpi_collective_end, kind, comm, root, bytes_sent, bytes_received);
}

/* ---- communicators' life cycle ---- */

/* The trace records a communicator's creation or destruction as a
 * CommCreate / CommDestroy and, with SCOREP_TRACING_HANDLE_COLLECTIVES, the
 * call as a collective (begin and end): the location's events are those. */
static inline void count_handle_collective(scorep_location* loc)
{
    if (scorep_cfg.tracing_handle_collectives)
        ((event_state*)loc->event_private)->event_count++;
}

void scorep_mpi_handle_begin(void)
{
    EVENT_BEGIN_UNCOUNTED(0);
    count_handle_collective(loc);
    DISPATCH(comm_event, SCOREP_COMM_EVENT_HANDLE_BEGIN, SCOREP_INVALID_ID);
}

/* right before the call's exit, which takes this event's time */
void scorep_mpi_handle_end(scorep_collective_kind kind, scorep_comm over, scorep_comm comm)
{
    EVENT_BEGIN_AT_END_UNCOUNTED();
    event_state* es = loc->event_private;
    count_handle_collective(loc);
    int destroy = kind == SCOREP_COLL_DESTROY_HANDLE;
    /* a failed call created nothing to be collective over: this process
     * alone, so that its begin has an end */
    if (over == SCOREP_INVALID_ID)
        over = SCOREP_COMM_SELF;
    /* a communicator whose creation the process did not record (an
     * MPI_Comm_idup's, or one made by a call of a group not measured) is
     * destroyed without a record: a CommDestroy always has its CommCreate */
    if (comm != SCOREP_INVALID_ID && (scorep_comm_create_recorded(comm, !destroy) || !destroy)) {
        es->event_count++;
        DISPATCH(comm_event, destroy ? SCOREP_COMM_EVENT_DESTROY : SCOREP_COMM_EVENT_CREATE, comm);
    }
    DISPATCH(comm_event, destroy ? SCOREP_COMM_EVENT_HANDLE_END_DESTROY : SCOREP_COMM_EVENT_HANDLE_END_CREATE, over);
}

void scorep_mpi_handle_end_predefined(scorep_collective_kind kind)
{
    EVENT_BEGIN_AT_END_UNCOUNTED();
    event_state* es = loc->event_private;
    count_handle_collective(loc);
    int destroy = kind == SCOREP_COLL_DESTROY_HANDLE;
    scorep_comm_event what = destroy ? SCOREP_COMM_EVENT_DESTROY : SCOREP_COMM_EVENT_CREATE;
    if (scorep_comm_create_recorded(SCOREP_COMM_WORLD, !destroy) || !destroy) {
        es->event_count++;
        DISPATCH(comm_event, what, SCOREP_COMM_WORLD);
    }
    if (scorep_comm_create_recorded(SCOREP_COMM_SELF, !destroy) || !destroy) {
        es->event_count++;
        DISPATCH(comm_event, what, SCOREP_COMM_SELF);
    }
    DISPATCH(comm_event, kind == SCOREP_COLL_DESTROY_HANDLE ? SCOREP_COMM_EVENT_HANDLE_END_DESTROY
                                                            : SCOREP_COMM_EVENT_HANDLE_END_CREATE,
             SCOREP_COMM_WORLD);
}

/* not an event of its own: it belongs to the enter or exit that follows */
void scorep_attribute(scorep_attribute_kind kind, uint64_t value)
{
    if (flat_attribute.count == 0) return;   /* the profile has no use for them */
    INSIDE_MEASUREMENT;
    scorep_location* loc = current();
    if (UNLIKELY(!loc)) return;
    for (int i = 0; i < flat_attribute.count; i++)
        flat_attribute.fns[i](loc, kind, value);
}

/* ---- RMA ---- */

void scorep_rma_window_create(scorep_window window) { EVENT_BEGIN(); DISPATCH(rma_win_create, window); }
void scorep_rma_window_free(scorep_window window) { EVENT_BEGIN(); DISPATCH(rma_win_destroy, window); }

void scorep_rma_put(scorep_window window, int target, uint64_t bytes, uint64_t matching_id)
{
    EVENT_BEGIN();
    DISPATCH_FLAT(rma_put, window, target, bytes, matching_id);
}

void scorep_rma_get(scorep_window window, int target, uint64_t bytes, uint64_t matching_id)
{
    EVENT_BEGIN();
    DISPATCH_FLAT(rma_get, window, target, bytes, matching_id);
}

void scorep_rma_atomic(scorep_window window, int target, scorep_rma_atomic_kind kind, uint64_t bytes_sent,
                       uint64_t bytes_received, uint64_t matching_id)
{
    EVENT_BEGIN();
    DISPATCH_FLAT(rma_atomic, window, target, kind, bytes_sent, bytes_received, matching_id);
}

void scorep_rma_op_complete(scorep_window window, uint64_t matching_id, int blocking)
{
    EVENT_BEGIN();
    DISPATCH_FLAT(rma_op_complete, window, matching_id, blocking);
}

/* One-sided operations of a call that is one operation (adapter.h): issued
 * right after the call's enter, with its time; the target parameter first
 * (one more event at the same time) to the substrates whose RMA events do
 * not carry the target (the profile: bytes per target image; the trace's
 * RmaPut/RmaGet/RmaAtomic has the target rank). One call into the core. */
#define TARGET_PARAMETER(parameter, value)                                  \
    if ((parameter) != SCOREP_INVALID_ID && flat_target_parameter.count) {  \
        DISPATCH_FLAT(target_parameter, parameter, value);                  \
    }

void scorep_rma_put_at_call_start(scorep_window window, int target, uint64_t bytes, uint64_t matching_id,
                                  scorep_parameter parameter, int64_t value)
{
    EVENT_BEGIN_AT_START();
    TARGET_PARAMETER(parameter, value)
    DISPATCH_FLAT(rma_put, window, target, bytes, matching_id);
}

void scorep_rma_get_at_call_start(scorep_window window, int target, uint64_t bytes, uint64_t matching_id,
                                  scorep_parameter parameter, int64_t value)
{
    EVENT_BEGIN_AT_START();
    TARGET_PARAMETER(parameter, value)
    DISPATCH_FLAT(rma_get, window, target, bytes, matching_id);
}

void scorep_rma_atomic_at_call_start(scorep_window window, int target, scorep_rma_atomic_kind kind,
                                     uint64_t bytes_sent, uint64_t bytes_received, uint64_t matching_id,
                                     scorep_parameter parameter, int64_t value)
{
    EVENT_BEGIN_AT_START();
    TARGET_PARAMETER(parameter, value)
    DISPATCH_FLAT(rma_atomic, window, target, kind, bytes_sent, bytes_received, matching_id);
}

void scorep_rma_op_complete_at_call_end(scorep_window window, uint64_t matching_id, int blocking)
{
    EVENT_BEGIN_AT_END();
    DISPATCH_FLAT(rma_op_complete, window, matching_id, blocking);
}

void scorep_rma_collective_begin(void) { EVENT_BEGIN_AT_START(); DISPATCH0(rma_collective_begin); }

void scorep_rma_collective_end(scorep_collective_kind kind, scorep_rma_sync_level level, scorep_window window,
                               int root, uint64_t bytes_sent, uint64_t bytes_received)
{
    EVENT_BEGIN();
    DISPATCH(rma_collective_end, kind, level, window, root, bytes_sent, bytes_received);
}

void scorep_rma_group_sync(scorep_rma_sync_level level, scorep_window window, scorep_comm group)
{
    EVENT_BEGIN();
    DISPATCH(rma_group_sync, level, window, group);
}

void scorep_rma_lock(scorep_window window, int target, int exclusive)
{
    EVENT_BEGIN();
    DISPATCH(rma_lock, window, target, exclusive);
}

void scorep_rma_unlock(scorep_window window, int target) { EVENT_BEGIN(); DISPATCH(rma_unlock, window, target); }
void scorep_rma_sync(scorep_window window, int target) { EVENT_BEGIN(); DISPATCH(rma_sync, window, target); }

/* ---- I/O, parameters, metrics ---- */

/* The bytes a transfer moved, counted in the profile; the trace has no
 * record of them (its IoOperationComplete carries them), so they are no
 * event of the location's count: stamped with the last event's time, no
 * clock read. */
void scorep_io_bytes(uint64_t bytes_read, uint64_t bytes_written)
{
    EVENT_BEGIN_UNCOUNTED(0);
    DISPATCH_FLAT(io_bytes, bytes_read, bytes_written);
}

/* The I/O adapters' handle events: stamped with the clock (needs_event_times)
 * when a trace records them; the profile has no callback for them. */
void scorep_io_create_handle(scorep_io_handle handle, scorep_io_access mode, uint32_t open_flags)
{
    EVENT_BEGIN();
    DISPATCH(io_create_handle, handle, mode, open_flags);
}

void scorep_io_destroy_handle(scorep_io_handle handle)
{
    EVENT_BEGIN();
    DISPATCH(io_destroy_handle, handle);
}

void scorep_io_duplicate_handle(scorep_io_handle old_handle, scorep_io_handle new_handle, int close_on_exec)
{
    EVENT_BEGIN();
    DISPATCH(io_duplicate_handle, old_handle, new_handle, close_on_exec);
}

/* A transfer's IoOperationBegin comes right after its region's enter and its
 * IoOperationComplete right before the exit (tasks/io_operation.c.j2): the
 * begin takes the enter's time and the exit the complete's, as an MPI call's
 * send and receive do; a recorded write reads the clock twice, not four
 * times (bench/system_adapters, docs/PERFORMANCE.md). With the profile on,
 * the transfers also feed the per-file totals (io_files.c): a file's time is
 * its transfers' region time, at no extra clock read; only the profile
 * writes them (profile_write.c), so a trace alone skips them. */
void scorep_io_operation_begin(scorep_io_handle handle, scorep_io_operation mode, uint64_t bytes_request,
                               uint64_t matching_id)
{
    EVENT_BEGIN_AT_START();
    if (profile_active) scorep_io_files_begin(t, handle, mode);
    DISPATCH_FLAT(io_operation_begin, handle, mode, bytes_request, matching_id);
}

/* scorep_enter and scorep_io_operation_begin with one location lookup and
 * one call from the wrapper: the trace's way into a transfer */
void scorep_io_transfer_enter(scorep_region region, scorep_io_handle handle, scorep_io_operation mode,
                              uint64_t bytes_request, uint64_t matching_id)
{
    INSIDE_MEASUREMENT;
    scorep_location* loc = current();
    if (UNLIKELY(!loc)) return;
    enter_on(loc, region);
    uint64_t t = loc->last_ticks;
    ((event_state*)loc->event_private)->event_count++;
    if (profile_active) scorep_io_files_begin(t, handle, mode);
    DISPATCH_FLAT(io_operation_begin, handle, mode, bytes_request, matching_id);
}

/* POSIX aio's records (io_async.c keeps the operations in flight): an
 * operation's begin (at its submission), issue, test or cancellation, at
 * time t, which the caller read (the submission keeps it as the operation's
 * start) */
void scorep_io_async_record(uint64_t t, scorep_io_async_event event, scorep_io_handle handle,
                           scorep_io_operation mode, uint64_t bytes_request, uint64_t matching_id)
{
    INSIDE_MEASUREMENT;
    scorep_location* loc = current();
    if (UNLIKELY(!loc)) return;
    loc->last_ticks = t;
    ((event_state*)loc->event_private)->event_count++;
    DISPATCH(io_operation_async, event, handle, mode, bytes_request, matching_id);
}

/* The end of an aio operation started at `began`: the per-file totals take
 * it as one transfer, the trace its IoOperationComplete */
void scorep_io_async_complete(scorep_io_handle handle, scorep_io_operation mode, uint64_t began,
                              uint64_t bytes_done, uint64_t matching_id)
{
    EVENT_BEGIN_TIMED();
    if (profile_active) scorep_io_files_transfer(began, t, handle, mode, bytes_done);
    DISPATCH_FLAT(io_operation_complete, handle, bytes_done, matching_id);
}

void scorep_io_operation_complete(scorep_io_handle handle, uint64_t bytes_result, uint64_t matching_id)
{
    EVENT_BEGIN_TIMED();
    ((event_state*)loc->event_private)->exit_at_last = 1;
    if (profile_active) scorep_io_files_complete(t, handle, bytes_result);
    DISPATCH_FLAT(io_operation_complete, handle, bytes_result, matching_id);
}

/* The end of a recorded transfer in one call (tasks/io_operation.c.j2): the
 * bytes done counted for the profile (io_bytes, by the direction of mode),
 * on a handle the per-file totals and the IoOperationComplete, and the exit
 * of region, which takes the complete's time; as scorep_io_bytes,
 * scorep_io_operation_complete and scorep_exit, with one location lookup
 * (docs/PERFORMANCE.md). On a handle the clock is read for the per-file time
 * (io_files.c), and the exit takes that time: one read, as a plain exit. */
/* When of region's visit, open on loc, the transfer began: its enter, which
 * the profile keeps in the node (with something nested in between the
 * location's last event is later); without the profile the last event's
 * time, as scorep_io_operation_begin right after the enter takes it. */
static inline uint64_t transfer_began(scorep_location* loc, scorep_region region)
{
    if (LIKELY(profile_active)) {
        scorep_profile_node* n = loc->profile_current;
        if (LIKELY(n && n->parent != NULL && n->region == region)) return n->enter_ticks;
    }
    return loc->last_ticks;
}

static __attribute__((noinline)) void transfer_exit_general(scorep_region region, scorep_io_handle handle,
                                                           scorep_io_operation mode, uint64_t bytes_done,
                                                           uint64_t matching_id)
{
    uint64_t bytes_read = mode == SCOREP_IO_OP_READ ? bytes_done : 0;
    if (handle != SCOREP_INVALID_ID) {
        INSIDE_MEASUREMENT;
        scorep_location* loc = current();
        if (UNLIKELY(!loc)) return;
        /* no substrate records IoOperationBegin (the profile alone): the
         * wrapper did not call scorep_io_operation_begin, its work for the
         * per-file totals is done here, with the enter's time it would have
         * taken, and it counts as the event it was */
        if (!scorep_io_operation_begin_recorded) {
            if (profile_active) scorep_io_files_begin(transfer_began(loc, region), handle, mode);
            ((event_state*)loc->event_private)->event_count++;
        }
        uint64_t t = scorep_timer_read();
        loc->last_ticks = t;
        event_state* es = loc->event_private;
        es->event_count++;
        es->exit_at_last = 1;
        if (bytes_done)
            DISPATCH_FLAT(io_bytes, bytes_read, bytes_done - bytes_read);
        if (profile_active) scorep_io_files_complete(t, handle, bytes_done);
        DISPATCH_FLAT(io_operation_complete, handle, bytes_done, matching_id);
        exit_general_body(loc, region);
    } else if (bytes_done) {
        EVENT_BEGIN_AT_END_UNCOUNTED();
        DISPATCH_FLAT(io_bytes, bytes_read, bytes_done - bytes_read);
        exit_general_body(loc, region);
    } else {
        scorep_exit(region);
    }
}

/* The short form of a transfer's end (the profile alone, the TSC, the
 * region the innermost open one): transfer_exit_general's work with one
 * clock read, the node updated in one go, and the per-file totals last in
 * one tail call (docs/PERFORMANCE.md, "System adapters"). The events it
 * counts, as the trace would have them: the IoOperationBegin the wrapper
 * left out and the complete (on a handle), the exit. */
void scorep_io_transfer_exit(scorep_region region, scorep_io_handle handle, scorep_io_operation mode,
                             uint64_t bytes_done, uint64_t matching_id)
{
    /* the profile alone: no substrate records IoOperationBegin
     * (scorep_io_operation_begin_recorded is 0), the wrapper left it out */
    if (UNLIKELY(!short_events)) {
        transfer_exit_general(region, handle, mode, bytes_done, matching_id);
        return;
    }
    /* no test of the region's filter flag: a filtered region never has a
     * node (its flag is set when it is defined, before any enter), so the
     * innermost node being this region's (tested below) says it is not
     * filtered; one dependent chain of loads less (docs/PERFORMANCE.md) */
    scorep_location* loc = scorep_tls_location;
    if (UNLIKELY(!loc)) {
        transfer_exit_general(region, handle, mode, bytes_done, matching_id);
        return;
    }
    event_state* es = loc->event_private;
    scorep_profile_node* cur = loc->profile_current;
    if (UNLIKELY(es->depth == 0 || cur->region != region || cur->parameter != SCOREP_INVALID_ID ||
                 cur->parent == NULL)) {
        transfer_exit_general(region, handle, mode, bytes_done, matching_id);
        return;
    }
    uint64_t t = short_form_clock();
    es->exit_at_last = 0;
    es->depth--;
    es->event_count += (handle != SCOREP_INVALID_ID ? 2 : 0) + 1;
    loc->last_ticks = t;
    if (mode == SCOREP_IO_OP_READ)
        cur->n.bytes_read += bytes_done;
    else
        cur->n.bytes_written += bytes_done;
    uint64_t began = cur->enter_ticks;
    scorep_profile_close_visit(cur, t);
    loc->profile_current = cur->parent;
    if (handle == SCOREP_INVALID_ID) return;
    /* the file's sums (io_files.c) inline, this thread's own: the node's
     * duration again, unless the clock went back (as io_files.c counts) */
    io_files_thread* f = scorep_io_files_mine;
    if (UNLIKELY(!f)) {
        scorep_io_files_transfer(began, t, handle, mode, bytes_done);   /* the thread's first: its sums made */
        return;
    }
    scorep_io_files_add(scorep_io_files_slot(f, handle), mode, bytes_done, t >= began ? t - began : 0);
}

void scorep_io_seek(scorep_io_handle handle, int64_t offset_request, int whence, uint64_t offset_result)
{
    EVENT_BEGIN();
    DISPATCH(io_seek, handle, offset_request, whence, offset_result);
}

/* The thread adapter's events (adapter.h): stamped with the clock when a
 * trace records them; the profile has no callback for them. A BEGIN is the
 * new thread's first event: it makes the thread's location; an END its
 * last: the location is handed back (location.c). */
void scorep_thread_event(scorep_thread_event_kind kind, uint64_t sequence)
{
    EVENT_BEGIN();
    DISPATCH(thread_event, kind, sequence);
    if (kind == SCOREP_THREAD_END)
        scorep_location_thread_ends(loc);
}

void scorep_parameter_int(scorep_parameter parameter, int64_t value)
{
    EVENT_BEGIN_TIMED();
    DISPATCH_FLAT(parameter_int, parameter, value);
}

void scorep_parameter_string(scorep_parameter parameter, const char* value)
{
    scorep_string id = scorep_string_define(value);
    EVENT_BEGIN_TIMED();
    DISPATCH(parameter_string, parameter, id);
}

void scorep_metric_add(scorep_metric metric, int64_t value)
{
    if (metric == SCOREP_INVALID_ID) return;
    EVENT_BEGIN();
    DISPATCH(metric_add, metric, value);
}

/* The exit of region with value added to metric first (scorep_metric_add
 * and scorep_exit with one location lookup): the memory adapter's end of an
 * allocation or a free, the bytes on the call path of the visit it ends.
 * Returns that call path (the profile's node, as scorep_profile_current_path
 * gave it before the exit), NULL without the profile or when nothing is
 * recorded. With the profile alone the metric goes straight to the node. */
static __attribute__((noinline)) void* exit_metric_general(scorep_region region, scorep_metric metric,
                                                           int64_t value)
{
    INSIDE_MEASUREMENT;
    scorep_location* loc = current();
    if (UNLIKELY(!loc)) return NULL;
    scorep_profile_node* path = NULL;
    if (LIKELY(profile_active)) {
        path = loc->profile_current;
    }
    if (metric != SCOREP_INVALID_ID) {
        uint64_t t = events_need_time ? scorep_timer_read() : loc->last_ticks;
        loc->last_ticks = t;
        ((event_state*)loc->event_private)->event_count++;
        DISPATCH(metric_add, metric, value);
    }
    exit_general_body(loc, region);   /* already inside: not exit_general, which enters again */
    return path;
}

void* scorep_exit_metric(scorep_region region, scorep_metric metric, int64_t value)
{
    scorep_location* loc = scorep_tls_location;
    if (UNLIKELY(!short_events || !loc || metric == SCOREP_INVALID_ID))
        return exit_metric_general(region, metric, value);
    /* the profile alone: the metric's time is the last event's (no clock
     * read, as scorep_metric_add), its value straight into the node */
    ((event_state*)loc->event_private)->event_count++;
    scorep_profile_node* path = loc->profile_current;
    if (metric < SCOREP_PROFILE_MAX_METRICS) path->metrics[metric] += value;
    exit_on(loc, region);
    return path;
}

void scorep_event_buffer_flush(scorep_location* loc, uint64_t t_begin, uint64_t t_end)
{
    loc->last_ticks = t_end;  /* the next event stamped at the last one follows the flush */
    /* the trace's enter and leave of the flush region: two events of the
     * location (only the trace's buffers are flushed) */
    if (loc->event_private)
        ((event_state*)loc->event_private)->event_count += 2;
    for (int i = 0; i < scorep_substrate_count_active; i++)
        if (scorep_substrates[i]->buffer_flush) scorep_substrates[i]->buffer_flush(loc, t_begin, t_end);
}
