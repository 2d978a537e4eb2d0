/* The event layer's ways for the front doors above it: the profile's short
 * form of an enter and an exit (profile_fast.c) falls back to the general
 * way here, and the MPI adapter's request table (mpi_requests.c) hands the
 * events of requests here with the ids it gave them. Hidden: called
 * directly inside the measurement library. */
#ifndef SCOREP_WRAPGEN_EVENTS_H
#define SCOREP_WRAPGEN_EVENTS_H

#include "internal.h"

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

/* the calling thread's location while recording, made at its first event;
 * NULL when nothing is recorded */
SCOREP_EVENTS_INTERNAL scorep_location* scorep_events_location(void);

/* scorep_enter, scorep_exit, scorep_exit_metric and scorep_io_transfer_exit
 * (adapter.h) for every substrate and timer */
SCOREP_EVENTS_INTERNAL void scorep_events_enter(scorep_region region);
SCOREP_EVENTS_INTERNAL void scorep_events_exit(scorep_region region);
SCOREP_EVENTS_INTERNAL void scorep_events_exit_metric(scorep_region region, scorep_metric metric, int64_t value);
SCOREP_EVENTS_INTERNAL void scorep_events_transfer_exit(scorep_region region, scorep_io_handle handle,
                                                        scorep_io_operation mode, uint64_t bytes_done,
                                                        uint64_t matching_id);

/* a request's events: stamped as its call starts (isend, irecv_request) or
 * where its work ends (the others, whose call's exit takes their time);
 * send_id: the send half of an MPI_Isendrecv completed with it, or 0 */
SCOREP_EVENTS_INTERNAL void scorep_events_mpi_isend(scorep_comm comm, int peer, int tag, uint64_t bytes,
                                                    uint64_t id);
SCOREP_EVENTS_INTERNAL void scorep_events_mpi_irecv_request(uint64_t id);
SCOREP_EVENTS_INTERNAL void scorep_events_mpi_isend_complete(uint64_t id);
SCOREP_EVENTS_INTERNAL void scorep_events_mpi_irecv(uint64_t send_id, scorep_comm comm, int source, int tag,
                                                    uint64_t bytes, uint64_t id);
SCOREP_EVENTS_INTERNAL void scorep_events_mpi_request_cancelled(uint64_t send_id, uint64_t id);
SCOREP_EVENTS_INTERNAL void scorep_events_mpi_request_test(uint64_t id);

#endif
