/* The profile substrate's nodes and its enter and leave, inline: its
 * short form (profile_fast.c) works on them directly, and profile.c's
 * callbacks are the same functions, so both ways record alike. Only the
 * profile's own files include this. */
#ifndef SCOREP_WRAPGEN_PROFILE_EVENTS_H
#define SCOREP_WRAPGEN_PROFILE_EVENTS_H

#include "internal.h"
#include "profile.h"

typedef struct profile_location {
    scorep_profile_node root;       /* the current node is the location's (profile_current) */
    scorep_profile_node* pool;
    uint32_t pool_left;
    scorep_profile_node** hash;   /* open addressing, power-of-two capacity */
    size_t hash_capacity, hash_count;
    int mismatch_warned;
} profile_location;

/* Hidden: called and read inside the measurement library only, so directly
 * (no PLT jump, no GOT load) on the event path. */
#define SCOREP_PROFILE_INTERNAL __attribute__((visibility("hidden")))

/* the profile's slot in loc->substrate_data (set by its init) */
extern int scorep_profile_slot SCOREP_PROFILE_INTERNAL;

static inline profile_location* scorep_profile_state(const scorep_location* loc)
{
    return (profile_location*)loc->substrate_data[scorep_profile_slot];
}

/* A child seen for the first time, or not among the two entered last
 * (profile.c: the per-location hash, new nodes from the pool). */
SCOREP_PROFILE_INTERNAL scorep_profile_node* scorep_profile_child_slow(profile_location* pl,
                                                                       scorep_profile_node* parent,
                                                                       uint32_t region, uint32_t parameter,
                                                                       int64_t value);
/* An exit that does not match the innermost region, or leaves parameter
 * nodes or the root (profile.c). */
SCOREP_PROFILE_INTERNAL void scorep_profile_leave_slow(scorep_location* loc, profile_location* pl, uint64_t t,
                                                       scorep_region region);

/* the parts of the substrate's table (profile_substrate.c puts it together) */
extern const scorep_substrate scorep_profile_event_callbacks SCOREP_PROFILE_INTERNAL;   /* profile.c */
/* profile_fast.c */
SCOREP_PROFILE_INTERNAL void scorep_profile_activation_changed(int alone, int recording);
SCOREP_PROFILE_INTERNAL void scorep_profile_close_open(scorep_location* loc, uint64_t t);
SCOREP_PROFILE_INTERNAL void scorep_profile_io_transfer_begin(scorep_location* loc, uint64_t t,
                                                              scorep_io_handle handle, scorep_io_operation mode);
SCOREP_PROFILE_INTERNAL void scorep_profile_io_transfer_end(scorep_location* loc, uint64_t t,
                                                            scorep_io_handle handle, uint64_t bytes);
int scorep_profile_write(const scorep_finalize_context* ctx);   /* profile_write.c */

/* Programs alternate calls under one parent (MPI_Send, MPI_Recv, ...): the
 * two children entered last are kept, so alternation stays off the hash. */
static inline int scorep_profile_is_child_for(const scorep_profile_node* c, uint32_t region)
{
    return c && c->region == region && c->parameter == SCOREP_INVALID_ID;
}

static inline scorep_profile_node* scorep_profile_child(profile_location* pl, scorep_profile_node* parent,
                                                        uint32_t region)
{
    scorep_profile_node** cache = parent->cached_child;
    scorep_profile_node* c = cache[0];
    if (LIKELY(scorep_profile_is_child_for(c, region))) return c;
    /* the second one is used where it is (no store into the parent when
     * two children are called in turn); a child found elsewhere enters in
     * front, the first moving second */
    if (scorep_profile_is_child_for(cache[1], region)) return cache[1];
    c = scorep_profile_child_slow(pl, parent, region, SCOREP_INVALID_ID, 0);
    cache[1] = cache[0];
    cache[0] = c;
    return c;
}

static inline void scorep_profile_enter_on(scorep_location* loc, uint64_t t, scorep_region region)
{
    profile_location* pl = scorep_profile_state(loc);
    scorep_profile_node* c = scorep_profile_child(pl, loc->profile_current, region);
    c->enter_ticks = t;
    loc->profile_current = c;
}

static inline void scorep_profile_close_visit(scorep_profile_node* n, uint64_t t)
{
    uint64_t d = t - n->enter_ticks;
    n->n.visits++;
    n->n.time_incl += d;
    if (d < n->n.time_min) n->n.time_min = d;
    if (d > n->n.time_max) n->n.time_max = d;
}

static inline void scorep_profile_leave_on(scorep_location* loc, uint64_t t, scorep_region region)
{
    scorep_profile_node* cur = loc->profile_current;
    /* the usual exit: the innermost open region, no parameter node under it
     * (the root, the only node without a parent, is none) */
    if (LIKELY(cur->region == region && cur->parameter == SCOREP_INVALID_ID && cur->parent != NULL)) {
        scorep_profile_close_visit(cur, t);
        loc->profile_current = cur->parent;
        return;
    }
    scorep_profile_leave_slow(loc, scorep_profile_state(loc), t, region);
}

#endif /* SCOREP_WRAPGEN_PROFILE_EVENTS_H */
