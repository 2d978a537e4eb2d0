/* The event layer's ways for the front doors above it: the profile's short
 * form of an enter and an exit (profile_fast.c) falls back to the general
 * way here, and the MPI adapter's request table (mpi_requests.c) hands the
 * events of requests here with the ids it gave them. Hidden: called
 * directly inside the measurement library. */
#ifndef SCOREP_WRAPGEN_EVENTS_H
#define SCOREP_WRAPGEN_EVENTS_H

#include "event_state.h"
#include "internal.h"
#include "location.h"
#include "substrates.h"
#include "timer.h"

/* ---- event layer (events.c) ---- */
/* POSIX aio's events (events.c), for io_async.c, which keeps the operations
 * in flight: begin, issued, test or cancelled at time t; the complete of an
 * operation that began at `began` */
void scorep_io_async_record(uint64_t t, scorep_io_async_event event, scorep_io_handle handle,
                           scorep_io_operation mode, uint64_t bytes_request, uint64_t matching_id)
    __attribute__((visibility("hidden")));
void scorep_io_async_complete(scorep_io_handle handle, scorep_io_operation mode, uint64_t began,
                              uint64_t bytes_done, uint64_t matching_id) __attribute__((visibility("hidden")));
/* Leaves every region still open, newest first, at time t (finalisation) */
void scorep_events_finish_open_regions(uint64_t t);

#define SCOREP_EVENTS_INTERNAL __attribute__((visibility("hidden")))

SCOREP_EVENTS_INTERNAL scorep_location* scorep_events_location_slow(void);
/* the calling thread's location while recording, made at its first event;
 * NULL when nothing is recorded. Inline: the event path's one load and test. */
static inline scorep_location* scorep_events_location(void)
{
    scorep_location* loc = scorep_tls_location;
    if (UNLIKELY(!loc || !scorep_recording)) return scorep_events_location_slow();
    return loc;
}

/* scorep_enter, scorep_exit and scorep_io_transfer_exit (adapter.h) for
 * every substrate and timer */
SCOREP_EVENTS_INTERNAL void scorep_events_enter(scorep_region region);
SCOREP_EVENTS_INTERNAL void scorep_events_exit(scorep_region region);
/* scorep_exit_metric's on loc, the caller's location, inside the measurement */
SCOREP_EVENTS_INTERNAL void scorep_events_exit_metric_on(scorep_location* loc, scorep_region region,
                                                         scorep_metric metric, int64_t value);
SCOREP_EVENTS_INTERNAL void scorep_events_transfer_exit(scorep_region region, scorep_io_handle handle,
                                                        scorep_io_operation mode, uint64_t bytes_done,
                                                        uint64_t matching_id);

static inline scorep_event_state* scorep_event_state_of(const scorep_location* loc) { return loc->events; }

/* every substrate in effect that has the callback, through its flat array */
#define SCOREP_DISPATCH_FLAT(callback, ...)                              \
    for (int i_ = 0; i_ < scorep_dispatch_now.callback.count; i_++)      \
        scorep_dispatch_now.callback.fns[i_](loc, t, __VA_ARGS__);

/* the request events' stamp on the caller's location, inside the
 * measurement already: the clock (if asked) and the count */
#define SCOREP_EVENT_ON(read_clock)                                    \
    uint64_t t = (read_clock) ? scorep_timer_read() : loc->last_ticks; \
    loc->last_ticks = t;                                               \
    scorep_event_state_of(loc)->event_count++
#define SCOREP_EVENT_ON_AT_END()                                        \
    SCOREP_EVENT_ON(scorep_dispatch_now.need_time);                     \
    scorep_event_state_of(loc)->exit_at_last = (uint32_t)scorep_dispatch_now.need_time

/* A request's events on loc, the caller's location (scorep_events_location),
 * called inside the measurement (the caller's INSIDE_MEASUREMENT): stamped
 * as its call starts (isend, irecv_request) or where its work ends (the
 * others, whose call's exit takes their time); send_id: the send half of an
 * MPI_Isendrecv completed with it, or 0 */
static inline void scorep_events_mpi_isend(scorep_location* loc, scorep_comm comm, int peer, int tag,
                                           uint64_t bytes, uint64_t id)
{
    SCOREP_EVENT_ON(0);
    SCOREP_DISPATCH_FLAT(mpi_isend, comm, peer, tag, bytes, id);
}

static inline void scorep_events_mpi_irecv_request(scorep_location* loc, uint64_t id)
{
    SCOREP_EVENT_ON(0);
    SCOREP_DISPATCH_FLAT(mpi_irecv_request, id);
}

static inline void scorep_events_mpi_isend_complete(scorep_location* loc, uint64_t id)
{
    SCOREP_EVENT_ON_AT_END();
    SCOREP_DISPATCH_FLAT(mpi_isend_complete, id);
}

static inline void scorep_events_mpi_irecv(scorep_location* loc, uint64_t send_id, scorep_comm comm,
                                           int source, int tag, uint64_t bytes, uint64_t id)
{
    SCOREP_EVENT_ON_AT_END();
    if (send_id) {
        scorep_event_state_of(loc)->event_count++;
        SCOREP_DISPATCH_FLAT(mpi_isend_complete, send_id);
    }
    SCOREP_DISPATCH_FLAT(mpi_irecv, comm, source, tag, bytes, id);
}

static inline void scorep_events_mpi_request_cancelled(scorep_location* loc, uint64_t send_id, uint64_t id)
{
    SCOREP_EVENT_ON_AT_END();
    if (send_id) {
        scorep_event_state_of(loc)->event_count++;
        SCOREP_DISPATCH_FLAT(mpi_request_cancelled, send_id);
    }
    SCOREP_DISPATCH_FLAT(mpi_request_cancelled, id);
}

static inline void scorep_events_mpi_request_test(scorep_location* loc, uint64_t id)
{
    SCOREP_EVENT_ON(scorep_dispatch_now.need_time);
    SCOREP_DISPATCH_FLAT(mpi_request_test, id);
}

/* 1 while an enter or exit does more than the substrates' part (strict
 * metrics, unwinding): the event path's one test of both, which the
 * profile's short form also reads (it does without both). Hidden: one load
 * without the GOT. scorep_events_extras_changed sets it after either
 * started. */
extern uint32_t scorep_event_extras __attribute__((visibility("hidden")));
void scorep_events_extras_changed(void);

/* the calling thread's location for a sample (sampling.c's handler), its
 * waiting start routine's region entered; NULL if it has none */
scorep_location* scorep_events_sample_location(void) __attribute__((visibility("hidden")));

#endif
