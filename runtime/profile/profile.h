#ifndef SCOREP_WRAPGEN_PROFILE_H
#define SCOREP_WRAPGEN_PROFILE_H

#include "internal.h"

/* ---- profile substrate (profile.c) ---- */
const scorep_substrate* scorep_profile_substrate(void);

/* Walk a location's call-path tree: the profile's per-node numbers. */
typedef struct scorep_profile_numbers {
    uint64_t visits;
    uint64_t time_incl;      /* ticks */
    uint64_t time_min, time_max;  /* ticks, of one visit */
    uint64_t bytes_sent, bytes_received;
    uint64_t messages_sent, messages_received;
    uint64_t bytes_read, bytes_written;
    uint64_t collectives;
    /* one-sided (RMA) bytes, apart from bytes_sent/received as in Score-P */
    uint64_t bytes_put, bytes_get;
    /* samples taken here (SCOREP_ENABLE_UNWINDING; Score-P's hits) */
    uint64_t hits;
} scorep_profile_numbers;
/* b's numbers added to a's: two visits' sums of one call path as one */
static inline void scorep_profile_numbers_add(scorep_profile_numbers* a, const scorep_profile_numbers* b)
{
    if (b->visits && (!a->visits || b->time_min < a->time_min)) a->time_min = b->time_min;
    if (b->time_max > a->time_max) a->time_max = b->time_max;
    a->visits += b->visits;
    a->time_incl += b->time_incl;
    a->bytes_sent += b->bytes_sent, a->bytes_received += b->bytes_received;
    a->messages_sent += b->messages_sent, a->messages_received += b->messages_received;
    a->bytes_read += b->bytes_read, a->bytes_written += b->bytes_written;
    a->collectives += b->collectives, a->bytes_put += b->bytes_put, a->bytes_get += b->bytes_get;
    a->hits += b->hits;
}

/* the user metrics and the synchronous strict ones (SCOREP_METRIC_RUSAGE
 * 'all' is 16) together */
#define SCOREP_PROFILE_MAX_METRICS 24
typedef struct scorep_profile_node scorep_profile_node;
/* the parameter of a frame node: a function samples or an enter's unwinding
 * saw between two recorded regions, keyed by the code address (its
 * parameter_value) until profile_frames.c names it at the end */
#define SCOREP_PROFILE_FRAME (SCOREP_INVALID_ID - 1)
struct scorep_profile_node {
    scorep_region region;          /* for parameter nodes: the parameterised region */
    uint32_t parameter;            /* SCOREP_INVALID_ID unless a parameter node */
    int64_t parameter_value;       /* int value or string id */
    scorep_profile_node* parent;
    scorep_profile_node* first_child;
    scorep_profile_node* next_sibling;
    scorep_profile_node* cached_child[2];  /* the two children entered last, newest first */
    uint64_t enter_ticks;
    scorep_profile_numbers n;
    int64_t metrics[SCOREP_PROFILE_MAX_METRICS];
};
/* root of the location's tree (region SCOREP_INVALID_ID); NULL if the
 * profile substrate is not active */
scorep_profile_node* scorep_profile_root(scorep_location* loc);

#endif
