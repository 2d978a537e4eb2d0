/* A location's record of its events: the regions open on it and how many
 * events it recorded. The event layer (events.c) and the profile's short
 * form (profile_fast.c) write it on the location's thread; the location
 * (location.c) reads it. Made with the location, from the arena. */
#ifndef SCOREP_WRAPGEN_EVENT_STATE_H
#define SCOREP_WRAPGEN_EVENT_STATE_H

#include "internal.h"

#define SCOREP_STACK_MAX 1024
typedef struct scorep_event_state {
    uint32_t depth;
    /* the last event read the clock at the end of an MPI call's work (a
     * receive, a request completion): the exit that follows takes its time */
    uint32_t exit_at_last;
    /* the records the trace has (or would have) on the location */
    uint64_t event_count;
    scorep_region stack[SCOREP_STACK_MAX];
} scorep_event_state;

#endif
