/* The profile's short form of the hottest events: the one place that knows
 * both a location's event state (event_state.h) and the profile's nodes
 * (profile_events.h).
 *
 * scorep_enter, scorep_exit, scorep_exit_metric and scorep_io_transfer_exit
 * (adapter.h) come here first. While the profile records alone with the TSC
 * as the timer (short_events), they do the event layer's work and the
 * profile's in one step, written so that their only calls are tail calls:
 * a function that calls and goes on saves and restores registers around its
 * body, and those, a tenth of a recorded malloc/free pair's instructions,
 * are left out this way (docs/PERFORMANCE.md, "System adapters"). Anything
 * else takes the event layer's general way (events.h), which dispatches to
 * every substrate.
 *
 * The short form goes without the "inside" flag (substrate.h): a signal
 * handler's events between two of its stores leave the tree as they found
 * it; a fatal signal between the region stack's store and the node's is
 * why the profile closes its open regions by its own tree (close_open). */
#include "event_state.h"
#include "events.h"
#include "internal.h"
#include "definitions.h"
#include "location.h"
#include "strict_metrics.h"
#include "profile.h"
#include "report.h"
#include "io_files.h"
#include "profile_events.h"
#include "timer.h"

/* Recording, the profile the only substrate, the TSC the timer. One flag,
 * so that the event path tests one load instead of three; decided when
 * recording starts or stops and when the substrates are chosen (the timer
 * is chosen before either). */
static volatile int short_events;

void scorep_profile_activation_changed(int alone, int recording)
{
#ifdef SCOREP_HAVE_TSC
    /* strict metrics and unwinding are the event layer's general way (events.c);
     * strict metrics are read by the event layer's general way (events.c) */
    short_events = alone && recording && scorep_timer_active == SCOREP_TIMER_TSC && !scorep_event_extras;
#else
    (void)alone;
    (void)recording;
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

static __attribute__((noinline)) void enter_profile_other(scorep_location* loc, uint64_t t, scorep_region region)
{
    INSIDE_MEASUREMENT;   /* a new node may be made and linked */
    scorep_profile_enter_on(loc, t, region);
}

void scorep_enter(scorep_region region)
{
    scorep_location* loc = scorep_tls_location;
    /* the other substrates' way (the trace) first, after one load */
    if (UNLIKELY(!short_events || !loc)) {
        scorep_events_enter(region);
        return;
    }
    if (UNLIKELY(region >= SCOREP_MAX_REGIONS || scorep_region_filtered_flags[region])) return;
    uint64_t t = short_form_clock();
    scorep_event_state* es = loc->events;
    es->exit_at_last = 0;
    uint32_t depth = es->depth;
    if (LIKELY(depth < SCOREP_STACK_MAX)) es->stack[depth] = region;
    es->depth = depth + 1;
    es->event_count++;
    loc->last_ticks = t;
    /* scorep_profile_enter_on, the two cached children inline */
    scorep_profile_node* c = scorep_profile_cached_child(loc->profile_current, region);
    if (UNLIKELY(c == NULL)) {
        enter_profile_other(loc, t, region);
        return;
    }
    c->enter_ticks = t;
    loc->profile_current = c;
}

/* The exit of region on loc in the short form (short_events is set):
 * scorep_exit's work, also the end of a recorded allocation or free. */
static inline __attribute__((always_inline)) void exit_on(scorep_location* loc, scorep_region region)
{
    scorep_event_state* es = loc->events;
    if (UNLIKELY(es->depth == 0)) {
        scorep_events_exit(region);
        return;
    }
    /* the innermost node this region's: then the region is not filtered (a
     * filtered region never has a node: its flag is set when it is defined,
     * before any enter), so its flag need not be read; anything else takes
     * the general way, which tests the flag and leaves through the
     * profile's slow leave as before (the root, the only node without a
     * parent, is never left) */
    scorep_profile_node* cur = loc->profile_current;
    if (UNLIKELY(SCOREP_PROFILE_EXIT_IS_UNUSUAL(cur, region))) {
        scorep_events_exit(region);
        return;
    }
    uint64_t t = es->exit_at_last ? loc->last_ticks : short_form_clock();
    es->exit_at_last = 0;
    es->depth--;
    es->event_count++;
    loc->last_ticks = t;
    scorep_profile_leave_innermost(loc, cur, t);
}

void scorep_exit(scorep_region region)
{
    scorep_location* loc = scorep_tls_location;
    if (UNLIKELY(!short_events || !loc)) {
        scorep_events_exit(region);
        return;
    }
    exit_on(loc, region);
}

/* The exit of region with value added to metric first: the memory
 * adapter's end of an allocation or a free, the bytes on the call path of
 * the visit it ends. Returns that call path (the profile's node, as
 * scorep_profile_current_path gave it before the exit), NULL without the
 * profile or when nothing is recorded. In the short form the metric goes
 * straight to the node, at the last event's time (no clock read, as
 * scorep_metric_add). */
static __attribute__((noinline)) void* exit_metric_general(scorep_region region, scorep_metric metric,
                                                           int64_t value)
{
    INSIDE_MEASUREMENT;
    scorep_location* loc = scorep_events_location();
    if (UNLIKELY(!loc)) return NULL;
    void* path = loc->profile_current;
    scorep_events_exit_metric_on(loc, region, metric, value);
    return path;
}

void* scorep_exit_metric(scorep_region region, scorep_metric metric, int64_t value)
{
    scorep_location* loc = scorep_tls_location;
    if (UNLIKELY(!short_events || !loc || metric == SCOREP_INVALID_ID))
        return exit_metric_general(region, metric, value);
    loc->events->event_count++;
    scorep_profile_node* path = loc->profile_current;
    if (metric < SCOREP_PROFILE_MAX_METRICS) path->metrics[metric] += value;
    exit_on(loc, region);
    return path;
}

/* The short form of a transfer's end (the region the innermost open one):
 * the general way's work (events.c: scorep_events_transfer_exit) with one
 * clock read, the node updated in one go, and the per-file totals last.
 * The events it counts, as the trace would have them: the IoOperationBegin
 * the wrapper left out (no substrate records it when the profile is alone)
 * and the complete (on a handle), the exit. */
void scorep_io_transfer_exit(scorep_region region, scorep_io_handle handle, scorep_io_operation mode,
                             uint64_t bytes_done, uint64_t matching_id)
{
    scorep_location* loc = scorep_tls_location;
    if (UNLIKELY(!short_events || !loc)) {
        scorep_events_transfer_exit(region, handle, mode, bytes_done, matching_id);
        return;
    }
    /* no test of the region's filter flag: a filtered region never has a
     * node (its flag is set when it is defined, before any enter), so the
     * innermost node being this region's (tested below) says it is not
     * filtered; one dependent chain of loads less (docs/PERFORMANCE.md) */
    scorep_event_state* es = loc->events;
    scorep_profile_node* cur = loc->profile_current;
    if (UNLIKELY(es->depth == 0 || SCOREP_PROFILE_EXIT_IS_UNUSUAL(cur, region))) {
        scorep_events_transfer_exit(region, handle, mode, bytes_done, matching_id);
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
    scorep_profile_leave_innermost(loc, cur, t);
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

/* The profile's per-file totals on the general way (substrate.h,
 * io_transfer_begin/_end). SCOREP_TIME_OF_ENTER: the enter of the region
 * open innermost, which the node keeps (with something nested in between,
 * the location's last event is later). */
void scorep_profile_io_transfer_begin(scorep_location* loc, uint64_t t, scorep_io_handle handle,
                                      scorep_io_operation mode)
{
    if (t == SCOREP_TIME_OF_ENTER) {
        scorep_profile_node* n = loc->profile_current;
        t = n && n->parent != NULL ? n->enter_ticks : loc->last_ticks;
    }
    scorep_io_files_begin(t, handle, mode);
}

void scorep_profile_io_transfer_end(scorep_location* loc, uint64_t t, scorep_io_handle handle, uint64_t bytes)
{
    (void)loc;
    scorep_io_files_complete(t, handle, bytes);
}

/* The profile's own tree says what is open (substrate.h, close_open). A
 * fatal signal may stop a thread in the short form between the region
 * stack's store and the node's; closed by the stack, the profile was left
 * one level off: a mismatch warning, a visit closed twice and the
 * outermost one never. */
void scorep_profile_close_open(scorep_location* loc, uint64_t t)
{
    const scorep_profile_node* root = scorep_profile_root(loc);
    if (!root) return;
    /* the metrics at the end: on another thread's location its last values */
    if (loc->metric_values && loc == scorep_tls_location) scorep_strict_metrics_read(loc);
    /* a team member's open part ends at the forker's call path it continues,
     * whose nodes it never entered */
    profile_location* pl = scorep_profile_state(loc);
    const scorep_profile_node* stop = pl->team_path_end ? pl->team_path_end : root;
    for (const scorep_profile_node* cur = loc->profile_current; cur != stop; cur = loc->profile_current) {
        scorep_profile_leave_slow(loc, pl, t, SCOREP_INVALID_ID);
        if (loc->profile_current == cur) break;   /* parameter nodes right under the root: closed, kept */
    }
    scorep_profile_team_path_end(loc, pl, t);
}
