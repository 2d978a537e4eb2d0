/* The substrate registry (substrates.h). */
#include <string.h>

#include "substrates.h"

scorep_dispatch scorep_dispatch_now;
scorep_dispatch scorep_dispatch_recording;
volatile int scorep_recording;
int scorep_io_operations_recorded;
int scorep_io_operation_begin_recorded;

static const scorep_substrate* registered[SCOREP_MAX_SUBSTRATES];
static int registered_count;

int scorep_substrates_count(void) { return registered_count; }
const scorep_substrate* scorep_substrates_get(int i) { return registered[i]; }

#define FLAT_FILL(callback) \
    if (s->callback) d->callback.fns[d->callback.count++] = s->callback;

static void build_recording_table(void)
{
    scorep_dispatch* d = &scorep_dispatch_recording;
    *d = (scorep_dispatch){0};
    int wants_io_handles = 0;
    for (int i = 0; i < registered_count; i++) {
        const scorep_substrate* s = registered[i];
        d->substrates[d->count++] = s;
        d->need_time |= s->needs_event_times;
        wants_io_handles |= s->needs_io_handles;
        SCOREP_FLAT_CALLBACKS(FLAT_FILL)
        if (s->parameter_int && !s->rma_events_carry_target)
            d->target_parameter.fns[d->target_parameter.count++] = s->parameter_int;
    }
    /* what the I/O wrappers ask before they call (adapter.h) */
    scorep_io_operation_begin_recorded = d->io_operation_begin.count > 0;
    scorep_io_operations_recorded =
        d->io_operation_begin.count + d->io_operation_complete.count > 0 || wants_io_handles;
}

/* Each substrate learns whether it records alone while recording (the
 * profile's short form of an enter and an exit needs both). */
static void tell_activation(void)
{
    for (int i = 0; i < registered_count; i++)
        if (registered[i]->activation_changed)
            registered[i]->activation_changed(registered_count == 1, scorep_recording);
}

/* Puts the recording table in effect (on) or an empty one. Another thread
 * may be dispatching meanwhile (an event that passed the gate as it
 * closed): the functions are written before the counts that make them
 * reachable, and switching off clears the counts only, so such a thread
 * calls a valid function or none, never a cleared slot. */
#define PUBLISH(callback)                                                                          \
    memcpy(now->callback.fns, from->callback.fns, sizeof now->callback.fns);                       \
    __atomic_store_n(&now->callback.count, on ? from->callback.count : 0, __ATOMIC_RELEASE);
static void publish(int on)
{
    scorep_dispatch* now = &scorep_dispatch_now;
    const scorep_dispatch* from = &scorep_dispatch_recording;
    SCOREP_FLAT_CALLBACKS(PUBLISH)
    PUBLISH(target_parameter)
    memcpy(now->substrates, from->substrates, sizeof now->substrates);
    __atomic_store_n(&now->count, on ? from->count : 0, __ATOMIC_RELEASE);
    now->need_time = from->need_time;
}

int scorep_substrates_add(const scorep_substrate* s)
{
    if (!s) return -1;
    if (registered_count >= SCOREP_MAX_SUBSTRATES) {
        scorep_warning("the %s substrate is one too many (at most %d); continuing without it", s->name,
                       SCOREP_MAX_SUBSTRATES);
        return -1;
    }
    if (s->init && s->init(registered_count) != 0) {
        scorep_warning("the %s substrate could not start; continuing without it", s->name);
        return -1;
    }
    registered[registered_count++] = s;
    build_recording_table();
    publish(scorep_recording);
    tell_activation();
    return 0;
}

void scorep_substrates_set_recording(int on)
{
    /* the table first: an event that sees the gate open finds it */
    if (on) publish(1);
    __atomic_store_n(&scorep_recording, on, __ATOMIC_RELEASE);
    if (!on) publish(0);
    tell_activation();
}

void scorep_substrates_location_created(scorep_location* loc)
{
    for (int i = 0; i < registered_count; i++)
        if (registered[i]->location_created) registered[i]->location_created(loc);
}

void scorep_substrates_experiment_dir_ready(const char* directory, int rank, int size)
{
    for (int i = 0; i < registered_count; i++)
        if (registered[i]->experiment_dir_ready) registered[i]->experiment_dir_ready(directory, rank, size);
}

void scorep_substrates_recording_ended(int emergency)
{
    for (int i = 0; i < registered_count; i++)
        if (registered[i]->recording_ended) registered[i]->recording_ended(emergency);
}

void scorep_substrates_write_and_finalize(const scorep_finalize_context* ctx)
{
    for (int i = 0; i < registered_count; i++)
        if (registered[i]->write && registered[i]->write(ctx) != 0)
            scorep_warning("the %s substrate could not write all its data", registered[i]->name);
    scorep_substrates_finalize();
}

void scorep_substrates_finalize(void)
{
    for (int i = 0; i < registered_count; i++)
        if (registered[i]->finalize) registered[i]->finalize();
}
