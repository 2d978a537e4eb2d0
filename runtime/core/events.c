/* The event layer: the adapter API's event functions. Each takes a
 * timestamp, finds the calling thread's location, counts the event on it
 * (event_state.h) and hands the event to every registered substrate
 * through the registry's dispatch tables (substrates.h). It knows no
 * substrate: the profile's short form of an enter and an exit is the
 * profile's (profile_fast.c), which falls back to the general way here; the
 * MPI adapter's request table is the adapter's (mpi_requests.c), which
 * hands its events here with their ids. No locks, no allocation. */
#include <string.h>

#include "event_state.h"
#include "events.h"
#include "internal.h"
#include "config.h"
#include "definitions.h"
#include "location.h"
#include "sampling.h"
#include "strict_metrics.h"
#include "substrates.h"
#include "timer.h"



/* A created thread's start routine (the thread adapter's trampoline): its
 * region is entered when the thread records its next event, at the time
 * the routine was called, and not at all if that event is the enter of the
 * routine's own instrumented region. So a thread's tree begins with its
 * first instrumented region, as in Score-P, and a start routine nothing
 * instruments (libgomp's, Python's) still names the thread's calls. Until
 * then the thread's location is parked (location.c) and its own pointer
 * NULL, so that its next event takes the slow path, which alone looks
 * here: the fast path pays nothing. */
enum { START_NONE, START_WAITING, START_ENTERED, START_OWN_REGION };
static __thread struct {
    scorep_region region;
    uint64_t ticks;
    int state;
} thread_start TLS_FAST;

/* what an enter or exit does besides the substrates' part: the strict
 * metrics (strict_metrics.h), the unwinding (sampling.h); 0 when neither,
 * the event path's one test for both */
uint32_t scorep_event_extras;

void scorep_events_extras_changed(void)
{
    scorep_event_extras = scorep_strict_metric_count != 0 || scorep_unwinding;
}

/* unwound: the caller unwound the stack before it went inside the
 * measurement (scorep_unwind_prepare) */
static __attribute__((noinline)) void extras_at_enter(scorep_location* loc, scorep_region region, int unwound)
{
    if (scorep_strict_metric_count) scorep_strict_metrics_read(loc);
    if (loc->unwind) scorep_unwind_enter(loc, scorep_event_state_of(loc)->depth - 1, region, unwound);
}

static inline __attribute__((always_inline)) void enter_at(scorep_location* loc, uint64_t t, scorep_region region,
                                                           int unwound);

/* the start routine's own region: a compiler region whose symbol is the
 * name the thread adapter found for the routine */
static int start_routine_region(scorep_region start, scorep_region entered)
{
    const scorep_region_def* s = scorep_region_get(start);
    const scorep_region_def* e = entered == SCOREP_INVALID_ID ? NULL : scorep_region_get(entered);
    return s && e && e->paradigm == SCOREP_PARADIGM_COMPILER &&
           strcmp(e->canonical ? e->canonical : e->name, s->name) == 0;
}

/* The waiting thread's location, taken back, and the start routine's
 * region entered unless entering is the routine's own instrumented region;
 * NULL if nothing waits. */
static scorep_location* thread_start_resume(scorep_region entering)
{
    if (LIKELY(thread_start.state != START_WAITING)) return NULL;
    scorep_location* loc = scorep_location_parked;
    scorep_location_parked = NULL;
    scorep_tls_location = loc;
    if (start_routine_region(thread_start.region, entering)) {
        thread_start.state = START_OWN_REGION;
    } else {
        thread_start.state = START_ENTERED;
        scorep_region region = thread_start.region;
        if (region < SCOREP_MAX_REGIONS && !scorep_region_filtered_flags[region]) {
            int was_off = scorep_inside_begin();
            enter_at(loc, thread_start.ticks, region, 0);
            scorep_inside_end(was_off);
        }
    }
    return loc;
}

void scorep_enter_thread_start(scorep_region region)
{
    scorep_location* loc = scorep_tls_location;
    if (!loc || !scorep_recording) return;
    thread_start.region = region;
    thread_start.ticks = scorep_timer_read();
    if (UNLIKELY(scorep_unwinding)) scorep_unwind_thread_starts();
    loc->last_ticks = thread_start.ticks;
    thread_start.state = START_WAITING;
    scorep_location_parked = loc;
    scorep_tls_location = NULL;
}

void scorep_exit_thread_start(scorep_region region)
{
    thread_start_resume(SCOREP_INVALID_ID);
    int entered = thread_start.state == START_ENTERED;
    thread_start.state = START_NONE;
    if (entered) scorep_events_exit(region);
}

__attribute__((noinline)) scorep_location* scorep_events_location_slow(void)
{
    if (!scorep_recording) return NULL;
    if (scorep_tls_location) return scorep_tls_location;
    scorep_location* waiting = thread_start_resume(SCOREP_INVALID_ID);
    return waiting ? waiting : scorep_location_create_for_thread();
}

static inline scorep_location* current(void) { return scorep_events_location(); }

/* the location a sample of this thread goes to: a waiting start routine's
 * region is entered first (from the signal handler, which interrupted the
 * program: a sample is an event of the thread) */
scorep_location* scorep_events_sample_location(void)
{
    scorep_location* loc = scorep_tls_location;
    if (loc || !scorep_recording) return loc;
    return thread_start_resume(SCOREP_INVALID_ID);
}

/* Every enter and exit, whatever the substrates and the timer. enter_at:
 * the enter of a region the caller found not filtered, at time t. */
static inline __attribute__((always_inline)) void enter_at(scorep_location* loc, uint64_t t, scorep_region region,
                                                           int unwound)
{
    scorep_event_state* es = scorep_event_state_of(loc);
    es->exit_at_last = 0;
    if (LIKELY(es->depth < SCOREP_STACK_MAX)) es->stack[es->depth] = region;
    es->depth++;
    es->event_count++;
    loc->last_ticks = t;
    if (UNLIKELY(scorep_event_extras)) extras_at_enter(loc, region, unwound);
    for (int i = 0; i < scorep_dispatch_now.enter.count; i++) scorep_dispatch_now.enter.fns[i](loc, t, region);
}

static inline __attribute__((always_inline)) void enter_on(scorep_location* loc, scorep_region region, int unwound)
{
    if (UNLIKELY(region >= SCOREP_MAX_REGIONS || scorep_region_filtered_flags[region])) return;
    enter_at(loc, scorep_timer_read(), region, unwound);
}

static inline __attribute__((always_inline)) void exit_general_body(scorep_location* loc, scorep_region region)
{
    if (UNLIKELY(region >= SCOREP_MAX_REGIONS || scorep_region_filtered_flags[region])) return;
    scorep_event_state* es = scorep_event_state_of(loc);
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
    if (UNLIKELY(scorep_event_extras) && scorep_strict_metric_count) scorep_strict_metrics_read(loc);
    for (int i = 0; i < scorep_dispatch_now.leave.count; i++) scorep_dispatch_now.leave.fns[i](loc, t, region);
}

void scorep_events_enter(scorep_region region)
{
    /* the stack is unwound before the measurement's own work begins: a
     * signal handler's events in the meantime are still recorded */
    int unwound = UNLIKELY(scorep_unwinding) ? scorep_unwind_prepare() : 0;
    INSIDE_MEASUREMENT;
    if (UNLIKELY(thread_start.state == START_WAITING) && scorep_recording) thread_start_resume(region);
    scorep_location* loc = current();
    if (loc) enter_on(loc, region, unwound);
    if (unwound) scorep_unwind_release();
}

void scorep_events_exit(scorep_region region)
{
    scorep_location* loc = current();
    if (!loc) return;
    INSIDE_MEASUREMENT;
    exit_general_body(loc, region);
}

/* Leaves every region still open, newest first, at time t. Runs at
 * finalisation from the finalising thread, when no other thread records,
 * or from the handler of a fatal signal on the thread it stopped; after
 * recording stopped, so through the recording table. A substrate with its
 * own record of what is open (close_open: the profile, whose short form may
 * have been stopped by the signal between the stack's store and its own)
 * closes by that. */
void scorep_events_finish_open_regions(uint64_t t)
{
    const scorep_dispatch* d = &scorep_dispatch_recording;
    for (scorep_location* loc = scorep_location_list(); loc; loc = loc->next) {
        scorep_event_state* es = scorep_event_state_of(loc);
        if (!es) continue;
        uint64_t tl = t > loc->last_ticks ? t : loc->last_ticks;
        uint32_t depth = es->depth;
        for (int s = 0; s < d->count; s++) {
            if (d->substrates[s]->close_open) {
                d->substrates[s]->close_open(loc, tl);
                continue;
            }
            if (!d->substrates[s]->leave) continue;
            for (uint32_t level = depth; level > 0; level--) {
                scorep_region region = level - 1 < SCOREP_STACK_MAX ? es->stack[level - 1] : SCOREP_INVALID_ID;
                d->substrates[s]->leave(loc, tl, region);
            }
        }
        /* each leave an event of the location, as the trace records it
         * (the program region's is its ProgramEnd) */
        es->event_count += depth;
        es->depth = 0;
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
    scorep_event_state_of(loc)->event_count++
#define EVENT_BEGIN() EVENT_BEGIN_STAMPED(scorep_dispatch_now.need_time)
/* an event at the end of an MPI call's work (scorep_mpi_recv, a request
 * completion): with a clock read, the call's exit takes the same time */
#define EVENT_BEGIN_AT_END_UNCOUNTED()                              \
    EVENT_BEGIN_UNCOUNTED(scorep_dispatch_now.need_time);           \
    scorep_event_state_of(loc)->exit_at_last = (uint32_t)scorep_dispatch_now.need_time
#define EVENT_BEGIN_AT_END()                                        \
    EVENT_BEGIN_AT_END_UNCOUNTED();                                 \
    scorep_event_state_of(loc)->event_count++
#define EVENT_BEGIN_TIMED() EVENT_BEGIN_STAMPED(1)
#define EVENT_BEGIN_AT_START() EVENT_BEGIN_STAMPED(0)

/* the substrates in effect that have the callback: DISPATCH_FLAT through
 * the flat arrays (the frequent events), DISPATCH through the tables */
#define DISPATCH(callback, ...)                                          \
    for (int i_ = 0; i_ < scorep_dispatch_now.count; i_++) {             \
        const scorep_substrate* s_ = scorep_dispatch_now.substrates[i_]; \
        if (s_->callback) s_->callback(loc, t, __VA_ARGS__);             \
    }
#define DISPATCH_FLAT SCOREP_DISPATCH_FLAT
#define DISPATCH0_FLAT(callback)                                         \
    for (int i_ = 0; i_ < scorep_dispatch_now.callback.count; i_++)      \
        scorep_dispatch_now.callback.fns[i_](loc, t);
#define DISPATCH0(callback)                                              \
    for (int i_ = 0; i_ < scorep_dispatch_now.count; i_++) {             \
        const scorep_substrate* s_ = scorep_dispatch_now.substrates[i_]; \
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
        scorep_event_state_of(loc)->event_count--;
    DISPATCH_FLAT(mpi_collective_end, kind, comm, root, bytes_sent, bytes_received);
}

/* ---- communicators' life cycle ---- */

/* The trace records a communicator's creation or destruction as a
 * CommCreate / CommDestroy and, with SCOREP_TRACING_HANDLE_COLLECTIVES, the
 * call as a collective (begin and end): the location's events are those. */
static inline void count_handle_collective(scorep_location* loc)
{
    if (scorep_cfg.tracing_handle_collectives)
        scorep_event_state_of(loc)->event_count++;
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
    scorep_event_state* es = scorep_event_state_of(loc);
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
    scorep_event_state* es = scorep_event_state_of(loc);
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
    if (scorep_dispatch_now.attribute.count == 0) return;   /* the profile has no use for them */
    INSIDE_MEASUREMENT;
    scorep_location* loc = current();
    if (UNLIKELY(!loc)) return;
    for (int i = 0; i < scorep_dispatch_now.attribute.count; i++)
        scorep_dispatch_now.attribute.fns[i](loc, kind, value);
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
    if ((parameter) != SCOREP_INVALID_ID && scorep_dispatch_now.target_parameter.count) {  \
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
 * times (bench/system_adapters, docs/PERFORMANCE.md). The transfers also
 * go to the substrates that sum per file (io_transfer_begin/_end: the
 * profile's per-file totals), at no extra clock read. */
void scorep_io_operation_begin(scorep_io_handle handle, scorep_io_operation mode, uint64_t bytes_request,
                               uint64_t matching_id)
{
    EVENT_BEGIN_AT_START();
    DISPATCH_FLAT(io_transfer_begin, handle, mode);
    DISPATCH_FLAT(io_operation_begin, handle, mode, bytes_request, matching_id);
}

/* scorep_enter and scorep_io_operation_begin with one location lookup and
 * one call from the wrapper: the trace's way into a transfer */
void scorep_io_transfer_enter(scorep_region region, scorep_io_handle handle, scorep_io_operation mode,
                              uint64_t bytes_request, uint64_t matching_id)
{
    int unwound = UNLIKELY(scorep_unwinding) ? scorep_unwind_prepare() : 0;
    INSIDE_MEASUREMENT;
    scorep_location* loc = current();
    if (UNLIKELY(!loc)) {
        if (unwound) scorep_unwind_release();
        return;
    }
    enter_on(loc, region, unwound);
    if (unwound) scorep_unwind_release();
    uint64_t t = loc->last_ticks;
    scorep_event_state_of(loc)->event_count++;
    DISPATCH_FLAT(io_transfer_begin, handle, mode);
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
    scorep_event_state_of(loc)->event_count++;
    DISPATCH(io_operation_async, event, handle, mode, bytes_request, matching_id);
}

/* The end of an aio operation started at `began`: the per-file totals take
 * it as one transfer, the trace its IoOperationComplete */
void scorep_io_async_complete(scorep_io_handle handle, scorep_io_operation mode, uint64_t began,
                              uint64_t bytes_done, uint64_t matching_id)
{
    EVENT_BEGIN_TIMED();
    for (int i = 0; i < scorep_dispatch_now.io_transfer_begin.count; i++)
        scorep_dispatch_now.io_transfer_begin.fns[i](loc, began, handle, mode);
    DISPATCH_FLAT(io_transfer_end, handle, bytes_done);
    DISPATCH_FLAT(io_operation_complete, handle, bytes_done, matching_id);
}

void scorep_io_operation_complete(scorep_io_handle handle, uint64_t bytes_result, uint64_t matching_id)
{
    EVENT_BEGIN_TIMED();
    scorep_event_state_of(loc)->exit_at_last = 1;
    DISPATCH_FLAT(io_transfer_end, handle, bytes_result);
    DISPATCH_FLAT(io_operation_complete, handle, bytes_result, matching_id);
}

/* The end of a recorded transfer in one call (tasks/io_operation.c.j2): the
 * bytes done counted (io_bytes, by the direction of mode), on a handle the
 * per-file totals and the IoOperationComplete, and the exit of region,
 * which takes the complete's time; as scorep_io_bytes,
 * scorep_io_operation_complete and scorep_exit, with one location lookup
 * (docs/PERFORMANCE.md). On a handle the clock is read for the per-file time
 * (io_files.c), and the exit takes that time: one read, as a plain exit. */
void scorep_events_transfer_exit(scorep_region region, scorep_io_handle handle, scorep_io_operation mode,
                                 uint64_t bytes_done, uint64_t matching_id)
{
    uint64_t bytes_read = mode == SCOREP_IO_OP_READ ? bytes_done : 0;
    if (handle != SCOREP_INVALID_ID) {
        INSIDE_MEASUREMENT;
        scorep_location* loc = current();
        if (UNLIKELY(!loc)) return;
        /* no substrate records IoOperationBegin: the wrapper did not call
         * scorep_io_operation_begin, the per-file totals' begin is made
         * here, at the enter's time it would have taken, and it counts as
         * the event it was */
        if (!scorep_io_operation_begin_recorded) {
            for (int i = 0; i < scorep_dispatch_now.io_transfer_begin.count; i++)
                scorep_dispatch_now.io_transfer_begin.fns[i](loc, SCOREP_TIME_OF_ENTER, handle, mode);
            scorep_event_state_of(loc)->event_count++;
        }
        uint64_t t = scorep_timer_read();
        loc->last_ticks = t;
        scorep_event_state* es = scorep_event_state_of(loc);
        es->event_count++;
        es->exit_at_last = 1;
        if (bytes_done)
            DISPATCH_FLAT(io_bytes, bytes_read, bytes_done - bytes_read);
        DISPATCH_FLAT(io_transfer_end, handle, bytes_done);
        DISPATCH_FLAT(io_operation_complete, handle, bytes_done, matching_id);
        exit_general_body(loc, region);
    } else if (bytes_done) {
        EVENT_BEGIN_AT_END_UNCOUNTED();
        DISPATCH_FLAT(io_bytes, bytes_read, bytes_done - bytes_read);
        exit_general_body(loc, region);
    } else {
        scorep_events_exit(region);
    }
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

void scorep_thread_task_event(scorep_thread_event_kind kind, const scorep_thread_team* team, uint32_t creator,
                              uint32_t generation)
{
    EVENT_BEGIN();
    if (team != NULL && team->forker == NULL) team = NULL;   /* its fork was not recorded */
    if (creator == SCOREP_IMPLICIT_TASK) creator = loc->local_id;
    DISPATCH(thread_task, kind, team, creator, generation);
}

/* ---- fork/join teams (adapter.h) ---- */

/* the location a member thread had before its team begin took the team's,
 * given back at its team end (one: a thread is a non-first member of one
 * team at a time) */
static __thread scorep_location* location_before_team TLS_FAST;
static __thread int in_team_location TLS_FAST;

void scorep_thread_fork(scorep_thread_team* team, uint32_t requested)
{
    team->forker = NULL;
    team->forker_path = NULL;
    team->requested = requested;
    team->size = 0;
    team->level = 0;
    EVENT_BEGIN();
    team->forker = loc;
    team->level = loc->fork_level++;
    if (UNLIKELY(loc->unwind != NULL)) scorep_unwind_fork(loc);
    DISPATCH(thread_fork, team);
    DISPATCH(thread_event, SCOREP_THREAD_FORK, requested);
}

/* A member other than the first takes its location from the forker's
 * (location.c), so that each member of every team of one forker records on
 * one location whichever pooled thread runs it. Its timestamps go on from
 * the location's last, which another core's clock stamped. */
void scorep_thread_team_begin(scorep_thread_team* team, uint32_t member, uint32_t size)
{
    if (team->forker == NULL) return;   /* the fork was not recorded */
    INSIDE_MEASUREMENT;
    if (!scorep_recording) return;
    __atomic_store_n(&team->size, size, __ATOMIC_RELAXED);   /* each member the same */
    scorep_location* loc = team->forker;
    if (member == 0) {
        uint32_t key = team->level << 24 | (size & 0xffffff), known = 0;
        while (known < loc->team_key_count && loc->team_keys[known] != key) known++;
        if (known == loc->team_key_count && known < SCOREP_TEAM_SIZES_MAX) {
            loc->team_keys[known] = key;
            loc->team_key_count = known + 1;
        }
    } else {
        loc = scorep_location_team_member(team->forker, team->level, member);
        if (UNLIKELY(loc == NULL)) return;
        location_before_team = scorep_tls_location;
        in_team_location = 1;
        scorep_tls_location = loc;
    }
    uint64_t t = scorep_timer_read();
    if (t < loc->last_ticks) t = loc->last_ticks;
    loc->last_ticks = t;
    scorep_event_state* es = scorep_event_state_of(loc);
    es->event_count++;
    if (loc->team_parts <= SCOREP_TEAM_LEVELS_MAX) {
        loc->team_part_depth[loc->team_parts] = es->depth;
        loc->team_part_team[loc->team_parts] = team;
    }
    loc->team_parts++;
    /* a member's part is a visit of the forker's call path on its location */
    if (UNLIKELY(scorep_strict_metric_count)) scorep_strict_metrics_read(loc);
    DISPATCH(thread_team_begin, team);
}

void scorep_thread_team_end(scorep_thread_team* team)
{
    if (team->forker == NULL) return;
    INSIDE_MEASUREMENT;
    scorep_location* loc = scorep_tls_location;
    if (loc == NULL) return;
    if (loc != team->forker && !in_team_location) return;   /* its team begin took no location */
    uint64_t t = scorep_timer_read();
    if (t < loc->last_ticks) t = loc->last_ticks;
    loc->last_ticks = t;
    scorep_event_state_of(loc)->event_count++;
    if (loc->team_parts > 0) loc->team_parts--;
    if (UNLIKELY(scorep_strict_metric_count)) scorep_strict_metrics_read(loc);
    DISPATCH(thread_team_end, team);
    if (loc != team->forker) {
        scorep_tls_location = location_before_team;
        in_team_location = 0;
    }
}

void scorep_thread_team_leave(scorep_thread_team* team)
{
    if (team->forker == NULL) return;
    if (in_team_location && scorep_tls_location != team->forker) {
        scorep_tls_location = location_before_team;
        in_team_location = 0;
    }
}

int scorep_thread_team_resume(scorep_thread_team* team, uint32_t member)
{
    if (team->forker == NULL || member == 0 || in_team_location || !scorep_recording) return 0;
    INSIDE_MEASUREMENT;
    scorep_location* loc = scorep_location_team_member(team->forker, team->level, member);
    if (loc == NULL || loc == scorep_tls_location) return 0;
    location_before_team = scorep_tls_location;
    in_team_location = 1;
    scorep_tls_location = loc;
    return 1;
}

/* Whether loc's innermost open team part is team's, left open by
 * scorep_thread_team_leave (not ended by scorep_thread_team_end) */
static bool part_left_open(const scorep_location* loc, const scorep_thread_team* team)
{
    uint32_t top = loc->team_parts;
    return top > 0 && top <= SCOREP_TEAM_LEVELS_MAX + 1 && loc->team_part_team[top - 1] == team;
}

/* A member's part left open (scorep_thread_team_leave), ended at t on the
 * forking thread: the member's thread is past the team's end, so nothing
 * else writes its location now (its next team begin follows the next
 * fork, which follows this). */
static void end_team_part(scorep_location* loc, uint64_t t, scorep_thread_team* team)
{
    scorep_event_state* es = scorep_event_state_of(loc);
    if (t < loc->last_ticks) t = loc->last_ticks;
    loc->team_parts--;
    uint32_t depth = loc->team_parts <= SCOREP_TEAM_LEVELS_MAX ? loc->team_part_depth[loc->team_parts] : es->depth;
    while (es->depth > depth) {
        es->depth--;
        scorep_region region = es->depth < SCOREP_STACK_MAX ? es->stack[es->depth] : SCOREP_INVALID_ID;
        es->event_count++;
        for (int i = 0; i < scorep_dispatch_now.leave.count; i++) scorep_dispatch_now.leave.fns[i](loc, t, region);
    }
    es->exit_at_last = 0;
    es->event_count++;
    loc->last_ticks = t;
    DISPATCH(thread_team_end, team);
}

void scorep_thread_join(scorep_thread_team* team)
{
    if (team->forker == NULL) return;
    scorep_location* forker = team->forker;
    forker->fork_level = team->level;
    INSIDE_MEASUREMENT;
    if (!scorep_recording) return;
    uint64_t t = scorep_timer_read();
    uint32_t size = __atomic_load_n(&team->size, __ATOMIC_ACQUIRE);
    if (part_left_open(forker, team)) end_team_part(forker, t, team);
    scorep_location** members = team->level < SCOREP_TEAM_LEVELS_MAX
                                    ? __atomic_load_n(&forker->team_members[team->level], __ATOMIC_ACQUIRE)
                                    : NULL;
    for (uint32_t m = 1; members != NULL && m < size && m < SCOREP_TEAM_MEMBERS_MAX; m++) {
        scorep_location* member = __atomic_load_n(&members[m], __ATOMIC_ACQUIRE);
        if (member != NULL && part_left_open(member, team)) end_team_part(member, t, team);
    }
    scorep_location* loc = current();
    if (UNLIKELY(!loc)) return;
    if (t < loc->last_ticks) t = loc->last_ticks;
    loc->last_ticks = t;
    scorep_event_state_of(loc)->event_count++;
    DISPATCH(thread_event, SCOREP_THREAD_JOIN, 0);
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
    DISPATCH_FLAT(metric_add, metric, value);
}

/* The exit of region on loc with value added to metric first
 * (scorep_metric_add and scorep_exit with one location lookup, the
 * caller's): the memory adapter's end of an allocation or a free
 * (adapter.h: scorep_exit_metric), inside the measurement already. */
void scorep_events_exit_metric_on(scorep_location* loc, scorep_region region, scorep_metric metric, int64_t value)
{
    if (metric != SCOREP_INVALID_ID) {
        uint64_t t = scorep_dispatch_now.need_time ? scorep_timer_read() : loc->last_ticks;
        loc->last_ticks = t;
        scorep_event_state_of(loc)->event_count++;
        DISPATCH_FLAT(metric_add, metric, value);
    }
    exit_general_body(loc, region);
}

void scorep_event_buffer_flush(scorep_location* loc, uint64_t t_begin, uint64_t t_end)
{
    loc->last_ticks = t_end;  /* the next event stamped at the last one follows the flush */
    /* the trace's enter and leave of the flush region: two events of the
     * location (only the trace's buffers are flushed) */
    if (loc->events) scorep_event_state_of(loc)->event_count += 2;
    for (int i = 0; i < scorep_dispatch_recording.count; i++)
        if (scorep_dispatch_recording.substrates[i]->buffer_flush)
            scorep_dispatch_recording.substrates[i]->buffer_flush(loc, t_begin, t_end);
}
