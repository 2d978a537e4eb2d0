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
    /* a team member's part (profile.c: on_team_begin): the last node of
     * the forker's call path it continues, and when the part began */
    scorep_profile_node* team_path_end;
    uint64_t team_begin_ticks;
    /* the forker's path of the last part and this location's copy of it:
     * a member takes part in the same region again and again */
    const scorep_profile_node* last_forker_path;
    scorep_profile_node* last_team_path_end;
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
/* A team member's part ends at t (profile.c): the forker's call path it
 * continued gets the part's time, the location's current node is its root
 * again. Nothing where no part is open. */
SCOREP_PROFILE_INTERNAL void scorep_profile_team_path_end(scorep_location* loc, profile_location* pl, uint64_t t);
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
/* the frame nodes of a location's tree (its root) named, as functions, and
 * merged where they are one function; at the end of recording, for each
 * location (profile_frames.c). emergency: an abnormal end, perhaps in a signal
 * handler: by the dynamic symbol table only (no debug information, no
 * malloc). */
SCOREP_PROFILE_INTERNAL void scorep_profile_name_frames(scorep_profile_node* root, int emergency);

/* Programs alternate calls under one parent (MPI_Send, MPI_Recv, ...): the
 * two children entered last are kept, so alternation stays off the hash. */
static inline int scorep_profile_is_child_for(const scorep_profile_node* c, uint32_t region)
{
    return c && c->region == region && c->parameter == SCOREP_INVALID_ID;
}

/* One of the two children entered last under parent, if one is region's;
 * the second one is used where it is (no store into the parent when two
 * children are called in turn); NULL if neither is. */
static inline scorep_profile_node* scorep_profile_cached_child(const scorep_profile_node* parent, uint32_t region)
{
    scorep_profile_node* const* cache = parent->cached_child;
    if (LIKELY(scorep_profile_is_child_for(cache[0], region))) return cache[0];
    if (scorep_profile_is_child_for(cache[1], region)) return cache[1];
    return NULL;
}

static inline scorep_profile_node* scorep_profile_child(profile_location* pl, scorep_profile_node* parent,
                                                        uint32_t region)
{
    scorep_profile_node* c = scorep_profile_cached_child(parent, region);
    if (LIKELY(c != NULL)) return c;
    /* a child found elsewhere enters in front, the first moving second */
    c = scorep_profile_child_slow(pl, parent, region, SCOREP_INVALID_ID, 0);
    parent->cached_child[1] = parent->cached_child[0];
    parent->cached_child[0] = c;
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

/* Not the usual exit, which leaves the innermost open region with no
 * parameter node under it (the root, the only node without a parent, is
 * none): the slow leave's case. A macro, not a function: GCC gives the
 * branch hint of the condition it stands in to each of its three tests
 * only when they are written in the condition itself (as a function's
 * result, the short form's exit took a jump on its likely way). */
#define SCOREP_PROFILE_EXIT_IS_UNUSUAL(cur, region) \
    ((cur)->region != (region) || (cur)->parameter != SCOREP_INVALID_ID || (cur)->parent == NULL)

/* The node is left before its visit is counted: a fatal signal in between
 * loses this one visit rather than closing it twice. */
static inline void scorep_profile_leave_innermost(scorep_location* loc, scorep_profile_node* cur, uint64_t t)
{
    loc->profile_current = cur->parent;
    scorep_profile_close_visit(cur, t);
}

static inline void scorep_profile_leave_on(scorep_location* loc, uint64_t t, scorep_region region)
{
    scorep_profile_node* cur = loc->profile_current;
    if (LIKELY(!SCOREP_PROFILE_EXIT_IS_UNUSUAL(cur, region))) {
        scorep_profile_leave_innermost(loc, cur, t);
        return;
    }
    scorep_profile_leave_slow(loc, scorep_profile_state(loc), t, region);
}

#endif /* SCOREP_WRAPGEN_PROFILE_EVENTS_H */
