/* The substrate registry (substrates.c): which substrates record, and the
 * tables the event layer (events.c) dispatches through.
 *
 * A substrate registers its table once (scorep_substrates_add: its init
 * runs with its slot in loc->substrate_data). The registry then builds the
 * dispatch tables: for each callback of the event path the registered
 * substrates that have it, in flat arrays (one indirect call per substrate,
 * no table walk and NULL test), and keeps two of them: the one for
 * recording and the one in effect (scorep_dispatch_now). Recording on and off switches the whole table in
 * effect between the recording one and an empty one, so an event that
 * passed the recording gate as it closed reaches no substrate or a valid
 * one, never a cleared slot. What is not on the event path
 * (directory ready, recording ended, write, finalize) walks the registered
 * substrates in order. Nothing in events.c names a substrate. */
#ifndef SCOREP_WRAPGEN_SUBSTRATES_H
#define SCOREP_WRAPGEN_SUBSTRATES_H

#include "internal.h"

/* the event-path callbacks with flat arrays */
#define SCOREP_FLAT_CALLBACKS(X)                                                                       \
    X(enter) X(leave) X(mpi_send) X(mpi_recv) X(mpi_isend) X(mpi_isend_complete) X(mpi_irecv_request) \
    X(mpi_irecv) X(mpi_request_test) X(mpi_request_cancelled) X(mpi_collective_begin)                 \
    X(mpi_collective_end) X(rma_put) X(rma_get) X(rma_atomic) X(rma_op_complete) X(parameter_int)    \
    X(io_bytes) X(io_operation_begin) X(io_operation_complete) X(io_transfer_begin)                   \
    X(io_transfer_end) X(attribute) X(metric_add)

#define SCOREP_FLAT_DECLARE(callback)                                              \
    struct {                                                                       \
        int count;                                                                 \
        __typeof__(((scorep_substrate*)0)->callback) fns[SCOREP_MAX_SUBSTRATES];   \
    } callback;

typedef struct scorep_dispatch {
    /* the substrates in effect: DISPATCH walks them for the rarer events */
    int count;
    const scorep_substrate* substrates[SCOREP_MAX_SUBSTRATES];
    /* a substrate records the time of every event (the trace) */
    int need_time;
    SCOREP_FLAT_CALLBACKS(SCOREP_FLAT_DECLARE)
    /* parameter_int of the substrates whose RMA records do not carry the
     * target (the target parameter of the scorep_rma_*_at_call_start events) */
    struct {
        int count;
        __typeof__(((scorep_substrate*)0)->parameter_int) fns[SCOREP_MAX_SUBSTRATES];
    } target_parameter;
} scorep_dispatch;

/* hidden: read on the event path with one load, no GOT entry */
extern scorep_dispatch scorep_dispatch_now __attribute__((visibility("hidden")));
/* the table while recording, in effect or not (finalisation closes the
 * open regions through it after recording stopped) */
extern scorep_dispatch scorep_dispatch_recording __attribute__((visibility("hidden")));

/* The recording gate: open while the measurement runs. Only the life cycle
 * (lifecycle.c) opens and closes it (scorep_substrates_set_recording): an
 * event before the start or after the end is not recorded. */
extern volatile int scorep_recording __attribute__((visibility("hidden")));

/* Registers s, running its init with its slot; 0 on success, else it is
 * left out (its init warned) or the registry is full (warned here). Before
 * recording starts. */
int scorep_substrates_add(const scorep_substrate* s);
void scorep_substrates_set_recording(int on);
int scorep_substrates_count(void);
const scorep_substrate* scorep_substrates_get(int i);

/* notifications, each to every registered substrate that has the callback */
void scorep_substrates_location_created(scorep_location* loc);
void scorep_substrates_experiment_dir_ready(const char* directory, int rank, int size);
void scorep_substrates_recording_ended(int emergency);
/* write on every substrate (warns for each that fails), then finalize */
void scorep_substrates_write_and_finalize(const scorep_finalize_context* ctx);
void scorep_substrates_finalize(void);

#endif
