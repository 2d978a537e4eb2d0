/* Profile substrate: a call-path tree per location.
 *
 * The event path touches only the calling location's tree: entering looks up
 * the child of the current node (last-used child first, then a per-location
 * hash keyed by parent and region), leaving adds the visit's duration. Nodes
 * come from chunked pools, so memory is allocated only when a call path is
 * seen for the first time, and from the arena: a signal handler's event at a
 * new call path may need a node while the interrupted code is in malloc. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "definitions.h"
#include "profile.h"
#include "profile_events.h"
#include "sampling.h"
#include "strict_metrics.h"

#define POOL_CHUNK 512

int scorep_profile_slot;
static int profile_on;   /* the substrate is active (on_init ran) */

static inline uint64_t node_hash(const scorep_profile_node* parent, uint32_t region, uint32_t parameter,
                                 int64_t value)
{
    uint64_t h = (uint64_t)(uintptr_t)parent * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)region << 32 | parameter) * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)value * 0x165667B19E3779F9ull;
    return h ^ (h >> 29);
}

static void hash_insert(profile_location* pl, scorep_profile_node* node)
{
    size_t mask = pl->hash_capacity - 1;
    size_t i = node_hash(node->parent, node->region, node->parameter, node->parameter_value) & mask;
    while (pl->hash[i]) i = (i + 1) & mask;
    pl->hash[i] = node;
    pl->hash_count++;
}

static void hash_grow(profile_location* pl)
{
    scorep_profile_node** old = pl->hash;
    size_t old_capacity = pl->hash_capacity;
    pl->hash_capacity = old_capacity ? 2 * old_capacity : 256;
    pl->hash = scorep_arena_alloc(pl->hash_capacity * sizeof *pl->hash);
    pl->hash_count = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i]) hash_insert(pl, old[i]);
    scorep_arena_release(old, old_capacity * sizeof *old);
}

static scorep_profile_node* hash_find(profile_location* pl, const scorep_profile_node* parent, uint32_t region,
                                      uint32_t parameter, int64_t value)
{
    size_t mask = pl->hash_capacity - 1;
    for (size_t i = node_hash(parent, region, parameter, value) & mask;; i = (i + 1) & mask) {
        scorep_profile_node* n = pl->hash[i];
        if (!n) return NULL;
        if (n->parent == parent && n->region == region && n->parameter == parameter &&
            n->parameter_value == value)
            return n;
    }
}

scorep_profile_node* scorep_profile_child_slow(profile_location* pl, scorep_profile_node* parent,
                                               uint32_t region, uint32_t parameter, int64_t value)
{
    scorep_profile_node* n = hash_find(pl, parent, region, parameter, value);
    if (n) return n;
    if (!pl->pool_left) {
        pl->pool = scorep_arena_alloc(POOL_CHUNK * sizeof *pl->pool);
        pl->pool_left = POOL_CHUNK;
    }
    n = pl->pool++;
    pl->pool_left--;
    n->region = region;
    n->parameter = parameter;
    n->parameter_value = value;
    n->parent = parent;
    n->n.time_min = UINT64_MAX;
    /* append so that children stay in first-seen order */
    scorep_profile_node** link = &parent->first_child;
    while (*link) link = &(*link)->next_sibling;
    *link = n;
    if (2 * (pl->hash_count + 1) > pl->hash_capacity) hash_grow(pl);
    hash_insert(pl, n);
    return n;
}

static inline profile_location* state(scorep_location* loc) { return scorep_profile_state(loc); }

static void on_location_created(scorep_location* loc)
{
    profile_location* pl = scorep_arena_alloc(sizeof *pl);
    pl->root.region = SCOREP_INVALID_ID;
    pl->root.parameter = SCOREP_INVALID_ID;
    hash_grow(pl);
    loc->substrate_data[scorep_profile_slot] = pl;
    loc->profile_current = &pl->root;
}

/* The synchronous strict metrics (strict_metrics.h) per call path: the
 * sum of the visits' growth, leave minus enter (inclusive, as the time).
 * The enter's values are subtracted and the leave's added, so that a node
 * keeps no values of its open visit. Only on the general way: the short
 * form (profile_fast.c) is off while metrics are recorded. */
static inline void metrics_enter(const scorep_location* loc, scorep_profile_node* n)
{
    for (uint32_t i = 0; i < scorep_strict_metric_count; i++)
        n->metrics[scorep_strict_metric_ids[i]] -= (int64_t)loc->metric_values[i];
}

static inline void metrics_leave(const scorep_location* loc, scorep_profile_node* n)
{
    if (!loc->metric_values) return;
    for (uint32_t i = 0; i < scorep_strict_metric_count; i++)
        n->metrics[scorep_strict_metric_ids[i]] += (int64_t)loc->metric_values[i];
}

/* With unwinding: the frame nodes of frames (outermost first) below n */
static scorep_profile_node* frames_below(profile_location* pl, scorep_profile_node* n, const uintptr_t* frames,
                                         uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        n = scorep_profile_child_slow(pl, n, SCOREP_INVALID_ID, SCOREP_PROFILE_FRAME, (int64_t)frames[i]);
    return n;
}

/* the current node, continued through the frames the event layer unwound
 * for this enter or fork (core/sampling.h) */
static inline scorep_profile_node* current_through_frames(scorep_location* loc)
{
    if (LIKELY(loc->unwind == NULL) || !loc->unwind->enter_frame_count) return loc->profile_current;
    return frames_below(state(loc), loc->profile_current, loc->unwind->enter_frames, loc->unwind->enter_frame_count);
}

/* a region's exit leaves its frame nodes too: the current node is the
 * innermost open region's (or a parameter's) again */
static inline void leave_frames(scorep_location* loc)
{
    while (UNLIKELY(loc->profile_current->parameter == SCOREP_PROFILE_FRAME))
        loc->profile_current = loc->profile_current->parent;
}

static void on_enter(scorep_location* loc, uint64_t t, scorep_region region)
{
    loc->profile_current = current_through_frames(loc);
    scorep_profile_enter_on(loc, t, region);
    if (UNLIKELY(loc->metric_values != NULL)) metrics_enter(loc, loc->profile_current);
}

void scorep_profile_leave_slow(scorep_location* loc, profile_location* pl, uint64_t t, scorep_region region)
{
    scorep_profile_node* cur = loc->profile_current;
    /* parameter nodes end with the region visit they belong to */
    while (UNLIKELY(cur->parameter != SCOREP_INVALID_ID && cur->parameter != SCOREP_PROFILE_FRAME)) {
        metrics_leave(loc, cur);
        scorep_profile_close_visit(cur, t);
        cur = cur->parent;
    }
    if (UNLIKELY(cur == &pl->root)) return;
    if (UNLIKELY(cur->region != region && region != SCOREP_INVALID_ID) && !pl->mismatch_warned) {
        pl->mismatch_warned = 1;
        const scorep_region_def* want = scorep_region_get(cur->region);
        const scorep_region_def* got = scorep_region_get(region);
        scorep_warning("exit from '%s' while '%s' is the innermost open region (location %u); "
                       "the profile attributes it to '%s'",
                       got ? got->name : "?", want ? want->name : "?", loc->local_id, want ? want->name : "?");
    }
    metrics_leave(loc, cur);
    scorep_profile_close_visit(cur, t);
    loc->profile_current = cur->parent;
    leave_frames(loc);
}

static void on_leave(scorep_location* loc, uint64_t t, scorep_region region)
{
    scorep_profile_node* cur = loc->profile_current;
    if (UNLIKELY(loc->metric_values != NULL) && !SCOREP_PROFILE_EXIT_IS_UNUSUAL(cur, region))
        metrics_leave(loc, cur);
    scorep_profile_leave_on(loc, t, region);
    if (UNLIKELY(loc->unwind != NULL)) leave_frames(loc);
}

/* A sample (substrate.h): a hit of the innermost frame's node below the
 * current one, or of the current one itself. A frame node's time is its
 * samples' (and its children's, added at the end by profile_frames.c). */
static void on_sample(scorep_location* loc, uint64_t t, const uintptr_t* frames, uint32_t count, uint64_t ticks)
{
    (void)t;
    scorep_profile_node* n = frames_below(state(loc), loc->profile_current, frames, count);
    n->n.hits++;
    if (count) n->n.time_incl += ticks;
}

static void on_parameter(scorep_location* loc, uint64_t t, scorep_parameter parameter, int64_t value)
{
    scorep_profile_node* parent = loc->profile_current;
    scorep_profile_node* n = scorep_profile_child_slow(state(loc), parent, parent->region, parameter, value);
    n->enter_ticks = t;
    loc->profile_current = n;
    if (UNLIKELY(loc->metric_values != NULL)) metrics_enter(loc, n);
}

static void on_parameter_int(scorep_location* loc, uint64_t t, scorep_parameter p, int64_t v)
{
    on_parameter(loc, t, p, v);
}

static void on_parameter_string(scorep_location* loc, uint64_t t, scorep_parameter p, scorep_string v)
{
    on_parameter(loc, t, p, (int64_t)v);
}

#define CURRENT (loc->profile_current->n)

static void on_send(scorep_location* loc, uint64_t t, scorep_comm c, int p, int tag, uint64_t bytes)
{
    (void)t; (void)c; (void)p; (void)tag;
    CURRENT.bytes_sent += bytes;
    CURRENT.messages_sent++;
}

static void on_recv(scorep_location* loc, uint64_t t, scorep_comm c, int p, int tag, uint64_t bytes)
{
    (void)t; (void)c; (void)p; (void)tag;
    CURRENT.bytes_received += bytes;
    CURRENT.messages_received++;
}

static void on_isend(scorep_location* loc, uint64_t t, scorep_comm c, int p, int tag, uint64_t bytes, uint64_t id)
{
    (void)id;
    on_send(loc, t, c, p, tag, bytes);
}

static void on_irecv(scorep_location* loc, uint64_t t, scorep_comm c, int p, int tag, uint64_t bytes, uint64_t id)
{
    (void)id;
    on_recv(loc, t, c, p, tag, bytes);
}

static void on_collective_end(scorep_location* loc, uint64_t t, scorep_collective_kind kind, scorep_comm comm,
                              int root, uint64_t sent, uint64_t received)
{
    (void)t; (void)kind; (void)comm; (void)root;
    CURRENT.bytes_sent += sent;
    CURRENT.bytes_received += received;
    CURRENT.collectives++;
}

static void on_rma_put(scorep_location* loc, uint64_t t, scorep_window w, int target, uint64_t bytes, uint64_t m)
{
    (void)t; (void)w; (void)target; (void)m;
    CURRENT.bytes_put += bytes;
}

static void on_rma_get(scorep_location* loc, uint64_t t, scorep_window w, int target, uint64_t bytes, uint64_t m)
{
    (void)t; (void)w; (void)target; (void)m;
    CURRENT.bytes_get += bytes;
}

static void on_rma_atomic(scorep_location* loc, uint64_t t, scorep_window w, int target, scorep_rma_atomic_kind k,
                          uint64_t sent, uint64_t received, uint64_t m)
{
    (void)t; (void)w; (void)target; (void)k; (void)m;
    CURRENT.bytes_put += sent;
    CURRENT.bytes_get += received;
}

static void on_rma_collective_end(scorep_location* loc, uint64_t t, scorep_collective_kind kind,
                                  scorep_rma_sync_level level, scorep_window w, int root, uint64_t sent,
                                  uint64_t received)
{
    (void)t; (void)kind; (void)level; (void)w; (void)root;
    CURRENT.bytes_put += sent;
    CURRENT.bytes_get += received;
    CURRENT.collectives++;
}

static void on_io(scorep_location* loc, uint64_t t, uint64_t read, uint64_t written)
{
    (void)t;
    CURRENT.bytes_read += read;
    CURRENT.bytes_written += written;
}

static void on_metric(scorep_location* loc, uint64_t t, scorep_metric m, int64_t value)
{
    (void)t;
    if (m < SCOREP_PROFILE_MAX_METRICS) loc->profile_current->metrics[m] += value;
}

/* A team member other than the forker continues the forker's call path
 * (its node at the fork, read up to its root: nodes never change their
 * region or parent while recording): the path's nodes on the member's
 * location have no visits of their own and the time of the member's parts
 * below them (Score-P's tree of an OpenMP thread), so that their exclusive
 * time is 0. A path deeper than PATH_MAX keeps its innermost part. */
#define PATH_MAX_DEPTH 256
static void on_fork(scorep_location* loc, uint64_t t, scorep_thread_team* team)
{
    (void)t;
    /* with unwinding, the path goes on through the frames of the fork's caller */
    team->forker_path = current_through_frames(loc);
}

static void on_team_begin(scorep_location* loc, uint64_t t, const scorep_thread_team* team)
{
    if (loc == team->forker) return;
    profile_location* pl = state(loc);
    scorep_profile_node* node = pl->last_team_path_end;
    if (team->forker_path != pl->last_forker_path || node == NULL) {
        const scorep_profile_node* path[PATH_MAX_DEPTH];
        uint32_t depth = 0;
        for (const scorep_profile_node* n = team->forker_path; n && n->parent && depth < PATH_MAX_DEPTH; n = n->parent)
            path[depth++] = n;
        node = &pl->root;
        while (depth > 0) {
            const scorep_profile_node* n = path[--depth];
            node = scorep_profile_child_slow(pl, node, n->region, n->parameter, n->parameter_value);
        }
        pl->last_forker_path = team->forker_path;
        pl->last_team_path_end = node;
    }
    pl->team_path_end = node;
    pl->team_begin_ticks = t;
    loc->profile_current = node;
    if (UNLIKELY(loc->metric_values != NULL))
        for (scorep_profile_node* n = node; n != &pl->root; n = n->parent) metrics_enter(loc, n);
}

void scorep_profile_team_path_end(scorep_location* loc, profile_location* pl, uint64_t t)
{
    if (pl->team_path_end == NULL) return;
    uint64_t d = t - pl->team_begin_ticks;
    for (scorep_profile_node* n = pl->team_path_end; n != &pl->root; n = n->parent) {
        if (n->parameter == SCOREP_PROFILE_FRAME) continue;   /* its time is its children's */
        n->n.time_incl += d;
        metrics_leave(loc, n);   /* the part's growth, as its time */
    }
    pl->team_path_end = NULL;
    loc->profile_current = &pl->root;
}

static void on_team_end(scorep_location* loc, uint64_t t, const scorep_thread_team* team)
{
    if (loc == team->forker) return;
    scorep_profile_team_path_end(loc, state(loc), t);
}

static void on_buffer_flush(scorep_location* loc, uint64_t t_begin, uint64_t t_end)
{
    on_enter(loc, t_begin, scorep_flush_region);
    on_leave(loc, t_end, scorep_flush_region);
}

static int on_init(int slot)
{
    scorep_profile_slot = slot;
    profile_on = 1;
    return 0;
}

/* The memory adapter's call paths (adapter.h): the calling thread's current
 * node, kept with an allocation, and a metric added to such a node when the
 * measurement ends (its leaks), after every thread has stopped recording. */
void* scorep_profile_current_path(void)
{
    if (!profile_on) return NULL;
    scorep_location* loc = scorep_location_current();
    return loc ? loc->profile_current : NULL;
}

void scorep_profile_path_metric_add(void* path, scorep_metric m, int64_t value)
{
    if (path && m < SCOREP_PROFILE_MAX_METRICS) ((scorep_profile_node*)path)->metrics[m] += value;
}

void scorep_profile_path_metric_raise(void* path, scorep_metric m, int64_t value)
{
    if (path && m < SCOREP_PROFILE_MAX_METRICS && ((scorep_profile_node*)path)->metrics[m] < value)
        ((scorep_profile_node*)path)->metrics[m] = value;
}

scorep_profile_node* scorep_profile_root(scorep_location* loc)
{
    profile_location* pl = loc->substrate_data[scorep_profile_slot];
    return pl ? &pl->root : NULL;
}

/* Score-P's place for the call trees of threads: every tree that does not
 * begin with the program region (a created thread's, or calls a thread made
 * before or after it) stands under the program region's artificial child
 * THREADS, on the location that recorded it. The two nodes have no visits
 * and the moved trees' inclusive time, so that their exclusive time is 0.
 * Done once, when recording has ended: the nodes move, the memory
 * adapter's pointers to them stay valid. */
static void place_thread_trees(void)
{
    scorep_region threads = SCOREP_INVALID_ID;
    for (scorep_location* loc = scorep_location_list(); loc; loc = loc->next) {
        profile_location* pl = loc->substrate_data[scorep_profile_slot];
        if (!pl || scorep_program_region == SCOREP_INVALID_ID) continue;
        bool other_roots = false;
        for (scorep_profile_node* n = pl->root.first_child; n; n = n->next_sibling)
            other_roots |= n->region != scorep_program_region && n->parameter == SCOREP_INVALID_ID;
        if (!other_roots) continue;
        if (threads == SCOREP_INVALID_ID)
            threads = scorep_definitions_region_lines("THREADS", NULL, 0, 0, SCOREP_PARADIGM_PTHREAD,
                                                      SCOREP_ROLE_ARTIFICIAL, NULL, NULL);
        if (threads == SCOREP_INVALID_ID) return;   /* the definitions are full: the trees stay roots */
        scorep_profile_node *program = NULL, *moved = NULL, **moved_tail = &moved;
        for (scorep_profile_node** link = &pl->root.first_child; *link;) {
            scorep_profile_node* n = *link;
            if (n->region == scorep_program_region || n->parameter != SCOREP_INVALID_ID) {
                if (n->region == scorep_program_region && n->parameter == SCOREP_INVALID_ID) program = n;
                link = &n->next_sibling;
                continue;
            }
            *link = n->next_sibling;
            n->next_sibling = NULL;
            *moved_tail = n;
            moved_tail = &n->next_sibling;
        }
        if (!program) program = scorep_profile_child_slow(pl, &pl->root, scorep_program_region, SCOREP_INVALID_ID, 0);
        scorep_profile_node* holder = scorep_profile_child_slow(pl, program, threads, SCOREP_INVALID_ID, 0);
        scorep_profile_node** tail = &holder->first_child;
        while (*tail) tail = &(*tail)->next_sibling;
        *tail = moved;
        for (scorep_profile_node* n = moved; n; n = n->next_sibling) {
            n->parent = holder;
            holder->n.time_incl += n->n.time_incl;
            program->n.time_incl += n->n.time_incl;
        }
    }
}

static void recording_ended(int emergency)
{
    if (scorep_unwinding) {
        for (scorep_location* loc = scorep_location_list(); loc; loc = loc->next) {
            profile_location* pl = loc->substrate_data[scorep_profile_slot];
            if (pl) scorep_profile_name_frames(&pl->root, emergency);
        }
    }
    place_thread_trees();
}

/* the event callbacks; profile_substrate.c makes the whole table */
const scorep_substrate scorep_profile_event_callbacks = {
    .name = "profile",
    .init = on_init,
    .location_created = on_location_created,
    .enter = on_enter,
    .leave = on_leave,
    .mpi_send = on_send,
    .mpi_recv = on_recv,
    .mpi_isend = on_isend,
    .mpi_irecv = on_irecv,
    .mpi_collective_end = on_collective_end,
    .rma_put = on_rma_put,
    .rma_get = on_rma_get,
    .rma_atomic = on_rma_atomic,
    .rma_collective_end = on_rma_collective_end,
    .io_bytes = on_io,
    .parameter_int = on_parameter_int,
    .parameter_string = on_parameter_string,
    .metric_add = on_metric,
    .buffer_flush = on_buffer_flush,
    .thread_fork = on_fork,
    .thread_team_begin = on_team_begin,
    .thread_team_end = on_team_end,
    .recording_ended = recording_ended,
    .sample = on_sample,
};
