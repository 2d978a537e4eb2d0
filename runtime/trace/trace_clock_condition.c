/*
 * The clock condition, post mortem: after the clock offsets' correction
 * (mpi/clock_sync.c; OTF2 readers interpolate the events' times onto rank
 * 0's clock) an offset measured with an error larger than the latency of a
 * message leaves its receive before its send. Before the events are
 * encoded, rank 0 replays every rank's point-to-point messages on the
 * master clock and, in the manner of the controlled logical clock (Rabenseifner;
 * Becker et al., Scalasca), moves each such receive forward to its send plus
 * the smallest latency seen among the messages, and every later event of its
 * location by as much, so the location's order and the gaps between its other
 * events stay as recorded. A moved send moves the receives that depend on it,
 * so the replay follows the messages in causal order. Events are only ever
 * moved forward, and only where a receive needs it. The latency kept is the
 * smallest seen between ranks that read one clock with one correction (a
 * node's ranks): theirs is a true latency, and a node's is the lowest there
 * is. Where no two ranks share a clock, it is 0: latencies between clocks
 * include the offsets' errors, and a latency larger than a true one could
 * not be kept around a cycle of messages (the moves would grow without end).
 *
 * Collective operations are replayed too, with the causality their data
 * flow implies (as in Scalasca's controlled logical clock): a 1-to-N
 * operation's (bcast, scatter) non-root leaves follow the root's enter, an
 * N-to-1's (gather, reduce) root leave follows every member's enter, and
 * an N-to-N's (barrier, allreduce, allgather, alltoall, reduce_scatter)
 * every leave follows every other member's enter; each by the latency kept.
 * Scans, handle creation, non-blocking and persistent collectives (whose
 * recorded begin and end surround only the start of the operation) and
 * intercommunicators' collectives imply nothing here and are not moved.
 *
 * It runs only where the ranks read different clocks (some offset not 0):
 * the ranks of one node need it never. Rank 0 holds one 64-byte entry per
 * message event and two per collective operation and member of the run
 * (docs/CLOCKS.md: cost and limits); one-sided communication is not replayed.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace.h"
#include "multiprocess.h"
#include "timer.h"

/* COLL_BEGIN and COLL_END: a collective's enter and leave (the time of its
 * begin and end records); COLL_NONE: one that implies no order here */
enum { SEND = 0, RECEIVE = 1, COLL_BEGIN = 2, COLL_END = 3, COLL_NONE = 4 };
/* what a collective's leaves wait for (in a collective event's tag, with the
 * communicator's size shifted by 8) */
enum { SHAPE_NONE = 0, SHAPE_ONE_TO_ALL, SHAPE_ALL_TO_ONE, SHAPE_ALL_TO_ALL };

/* one message event as rank 0 sees it */
typedef struct message_event {
    uint64_t location;  /* index among the rank's trace locations; rank 0: global */
    uint64_t kind;      /* SEND, RECEIVE, COLL_* */
    uint64_t comm;      /* global communicator id */
    uint64_t sender, receiver;  /* world ranks; a collective: its root (or UINT64_MAX) and this rank */
    uint64_t tag;       /* a collective: shape | communicator size << 8 */
    uint64_t time;      /* master clock */
    uint64_t clock;     /* the rank's clock and its correction (clock_key) */
} message_event;

/* a location's shift from its index-th message event on (master ticks) */
typedef struct shift_point {
    uint64_t location, index, shift;
} shift_point;

static struct {
    const scorep_unified_definitions* defs;
    int rank;
    message_event* events;
    size_t count, capacity;
    uint64_t location_index;
    uint64_t clock_key;
    /* the scan of one location: its current region, its pending collective begin */
    uint32_t region;
    size_t pending_begin;
    /* this rank's shifts, by location and index */
    shift_point* shifts;
    size_t shift_count;
    double local_per_master;      /* written ticks per master tick (the offsets' slope) */
    /* the location being encoded */
    const shift_point* next;
    const shift_point* end;
    uint64_t message_index, shift_now, moved;
    int active;
} cc;

/* A point-to-point message event with a peer the definitions know. */
static int message_of(const raw_record* r, message_event* out)
{
    uint64_t kind;
    switch ((raw_kind)r->kind) {
    case RAW_MPI_SEND:
    case RAW_MPI_ISEND: kind = SEND; break;
    case RAW_MPI_RECV:
    case RAW_MPI_IRECV: kind = RECEIVE; break;
    case RAW_MPI_COLLECTIVE_BEGIN:
    case RAW_MPI_COLLECTIVE_END: /* scan_block fills these in */
        if (out != NULL)
            *out = (message_event){cc.location_index, COLL_NONE, 0, UINT64_MAX, (uint64_t)cc.rank, SHAPE_NONE,
                                   scorep_timer_to_master(r->time), cc.clock_key};
        return 1;
    default: return 0;
    }
    int other = scorep_comm_world_rank(r->id, (int)raw_low(r->word[0]));
    if (other < 0)
        return 0;
    if (out != NULL) {
        uint64_t me = (uint64_t)cc.rank;
        *out = (message_event){cc.location_index, kind, cc.defs->comm_map[r->id],
                               kind == SEND ? me : (uint64_t)other, kind == SEND ? (uint64_t)other : me,
                               raw_high(r->word[0]), scorep_timer_to_master(r->time), cc.clock_key};
    }
    return 1;
}

static int starts_with(const char* s, const char* prefix)
{
    return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What the collective that ends with r (its begin recorded in the region
 * `region`) lets its leaves wait for; *size: the communicator's size. */
static uint64_t collective_shape(const raw_record* r, uint32_t region, uint64_t* size)
{
    const scorep_region_def* def = scorep_region_get(region);
    /* a non-blocking (MPI_I<coll>) or persistent (MPI_Start) collective's
     * begin and end surround its start only */
    if (def == NULL || starts_with(def->name, "MPI_I") || starts_with(def->name, "MPI_Start")
        || starts_with(def->name, "mpi_i") || starts_with(def->name, "mpi_start"))
        return SHAPE_NONE;
    if (r->id == SCOREP_COMM_WORLD) {
        *size = (uint64_t)scorep_process_size;
    } else if (r->id == SCOREP_COMM_SELF) {
        *size = 1;
    } else {
        const scorep_comm_def* comm = scorep_comm_get(r->id);
        if (comm == NULL || comm->remote_size) return SHAPE_NONE; /* an intercommunicator's roots differ */
        *size = comm->size;
    }
    switch ((scorep_collective_kind)raw_low(r->word[0])) {
    case SCOREP_COLL_BCAST:
    case SCOREP_COLL_SCATTER:
    case SCOREP_COLL_SCATTERV: return SHAPE_ONE_TO_ALL;
    case SCOREP_COLL_GATHER:
    case SCOREP_COLL_GATHERV:
    case SCOREP_COLL_REDUCE: return SHAPE_ALL_TO_ONE;
    case SCOREP_COLL_BARRIER:
    case SCOREP_COLL_ALLGATHER:
    case SCOREP_COLL_ALLGATHERV:
    case SCOREP_COLL_ALLTOALL:
    case SCOREP_COLL_ALLTOALLV:
    case SCOREP_COLL_ALLTOALLW:
    case SCOREP_COLL_ALLREDUCE:
    case SCOREP_COLL_REDUCE_SCATTER:
    case SCOREP_COLL_REDUCE_SCATTER_BLOCK: return SHAPE_ALL_TO_ALL;
    /* MPI_Finalize's: the ranks meet in a barrier (tasks/finalize.c.j2) */
    case SCOREP_COLL_DESTROY_HANDLE: return strcmp(def->name, "MPI_Finalize") == 0 ? SHAPE_ALL_TO_ALL : SHAPE_NONE;
    default: return SHAPE_NONE;   /* scans (a prefix, not all), other handles */
    }
}

static int scan_block(trace_location* tl, const char* data, uint64_t bytes)
{
    (void)tl;
    for (const char* p = data; p < data + bytes;) {
        const raw_record* r = (const raw_record*)p;
        if (r->kind >= RAW_KIND_COUNT_)
            return 1;
        if (r->kind == RAW_ENTER)
            cc.region = r->id;
        message_event e;
        if (message_of(r, &e)) {
            if (cc.count == cc.capacity) {
                size_t capacity = cc.capacity ? 2 * cc.capacity : 1024;
                message_event* grown = realloc(cc.events, capacity * sizeof *grown);
                if (grown == NULL)
                    return 1;
                cc.events = grown;
                cc.capacity = capacity;
            }
            if (r->kind == RAW_MPI_COLLECTIVE_BEGIN) {
                cc.pending_begin = cc.count;
            } else if (r->kind == RAW_MPI_COLLECTIVE_END && cc.pending_begin != SIZE_MAX) {
                /* the begin just before, in the region the collective was called in */
                uint64_t size = 0, shape = collective_shape(r, cc.region, &size);
                uint32_t root = raw_high(r->word[0]);
                int world_root = shape == SHAPE_ALL_TO_ALL ? -1 : scorep_comm_world_rank(r->id, (int)root);
                if (shape != SHAPE_NONE && (shape == SHAPE_ALL_TO_ALL || world_root >= 0)) {
                    message_event* b = &cc.events[cc.pending_begin];
                    uint64_t begin_time = b->time;
                    e.kind = COLL_END;
                    e.comm = cc.defs->comm_map[r->id];
                    e.sender = world_root >= 0 ? (uint64_t)world_root : UINT64_MAX;
                    e.tag = shape | size << 8;
                    *b = e;
                    b->kind = COLL_BEGIN;
                    b->time = begin_time;
                }
                cc.pending_begin = SIZE_MAX;
            }
            cc.events[cc.count++] = e;
        }
        p += raw_record_bytes(r);
    }
    return 0;
}

/* ---- rank 0: match and replay ---- */

static const message_event* sorting;

static int by_message_key(const void* a, const void* b)
{
    const message_event* x = &sorting[*(const size_t*)a];
    const message_event* y = &sorting[*(const size_t*)b];
    const uint64_t kx[] = {x->comm, x->sender, x->receiver, x->tag, x->time};
    const uint64_t ky[] = {y->comm, y->sender, y->receiver, y->tag, y->time};
    for (int i = 0; i < 5; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return *(const size_t*)a < *(const size_t*)b ? -1 : 1;
}

static int same_channel(const message_event* x, const message_event* y)
{
    return x->comm == y->comm && x->sender == y->sender && x->receiver == y->receiver && x->tag == y->tag;
}

typedef struct replay {
    message_event* e;  /* all ranks' events, each location's contiguous and in order */
    size_t n;
    size_t* match;     /* receive -> its send, or SIZE_MAX */
    size_t locations;
    size_t* first;     /* per location: its first event; first[locations] = n */
    int* rank_of;      /* per location */
    uint64_t latency;  /* the smallest latency seen */
    /* collectives: each begin and end -> its instance (or SIZE_MAX); per
     * instance its shape (its members' events name the root) */
    size_t* instance;
    size_t instances;
    uint64_t* shape;
    shift_point* out;
    size_t out_count;
    uint64_t moved, moved_collective, max_shift;
} replay;

/* k-th send of a channel (communicator, sender, receiver, tag) to its k-th
 * receive: MPI's order of messages on a channel */
static int match_messages(replay* p)
{
    size_t* order = malloc((p->n ? p->n : 1) * sizeof *order);
    p->match = malloc((p->n ? p->n : 1) * sizeof *p->match);
    if (order == NULL || p->match == NULL) {
        free(order);
        return -1;
    }
    size_t sends = 0;
    for (size_t i = 0; i < p->n; i++) {
        p->match[i] = SIZE_MAX;
        if (p->e[i].kind == SEND) order[sends++] = i;
    }
    size_t receives = sends;
    for (size_t i = 0; i < p->n; i++)
        if (p->e[i].kind == RECEIVE) order[receives++] = i;
    sorting = p->e;
    qsort(order, sends, sizeof *order, by_message_key);
    qsort(order + sends, receives - sends, sizeof *order, by_message_key);
    uint64_t latency = UINT64_MAX;
    for (size_t s = 0, r = sends; s < sends && r < receives;) {
        const message_event* x = &p->e[order[s]];
        const message_event* y = &p->e[order[r]];
        if (same_channel(x, y)) {
            p->match[order[r]] = order[s];
            if (x->clock == y->clock && y->time > x->time && y->time - x->time < latency)
                latency = y->time - x->time;
            s++, r++;
        } else if (by_message_key(&order[s], &order[r]) < 0) {
            s++;
        } else {
            r++;
        }
    }
    p->latency = latency == UINT64_MAX ? 0 : latency;
    free(order);
    return 0;
}

static const message_event* sorting_collectives;
static const size_t* sorting_sequence;

/* ends by communicator, rank, time: each rank's sequence of collectives on a communicator */
static int by_rank_sequence(const void* a, const void* b)
{
    const message_event* x = &sorting_collectives[*(const size_t*)a];
    const message_event* y = &sorting_collectives[*(const size_t*)b];
    const uint64_t kx[] = {x->comm, x->receiver, x->time};
    const uint64_t ky[] = {y->comm, y->receiver, y->time};
    for (int i = 0; i < 3; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return *(const size_t*)a < *(const size_t*)b ? -1 : 1;
}

/* ends by communicator, position in the sequence, rank: one instance after the other */
static int by_instance(const void* a, const void* b)
{
    size_t i = *(const size_t*)a, j = *(const size_t*)b;
    const message_event* x = &sorting_collectives[i];
    const message_event* y = &sorting_collectives[j];
    const uint64_t kx[] = {x->comm, sorting_sequence[i], x->receiver};
    const uint64_t ky[] = {y->comm, sorting_sequence[j], y->receiver};
    for (int k = 0; k < 3; k++)
        if (kx[k] != ky[k])
            return kx[k] < ky[k] ? -1 : 1;
    return i < j ? -1 : 1;
}

/* The k-th collective of every member of a communicator is one instance
 * (MPI orders a communicator's collectives alike on all its members). An
 * instance whose members are not all there, or disagree on the operation or
 * its root, is left out (its begins and ends constrain nothing). */
static int match_collectives(replay* p)
{
    size_t ends = 0;
    for (size_t i = 0; i < p->n; i++) ends += p->e[i].kind == COLL_END;
    p->instance = malloc((p->n ? p->n : 1) * sizeof *p->instance);
    size_t* order = malloc((ends ? ends : 1) * sizeof *order);
    size_t* sequence = malloc((p->n ? p->n : 1) * sizeof *sequence);
    p->shape = malloc((ends ? ends : 1) * sizeof *p->shape);
    if (!p->instance || !order || !sequence || !p->shape) {
        free(order);
        free(sequence);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++) {
        p->instance[i] = SIZE_MAX;
        if (p->e[i].kind == COLL_END) order[k++] = i;
    }
    sorting_collectives = p->e;
    qsort(order, ends, sizeof *order, by_rank_sequence);
    for (size_t a = 0; a < ends; a++) {
        const message_event* x = &p->e[order[a]];
        const message_event* prev = a > 0 ? &p->e[order[a - 1]] : NULL;
        sequence[order[a]] = prev && prev->comm == x->comm && prev->receiver == x->receiver
                             ? sequence[order[a - 1]] + 1 : 0;
    }
    sorting_sequence = sequence;
    qsort(order, ends, sizeof *order, by_instance);
    for (size_t a = 0; a < ends;) {
        size_t b = a + 1;
        const message_event* x = &p->e[order[a]];
        while (b < ends && p->e[order[b]].comm == x->comm && sequence[order[b]] == sequence[order[a]]) b++;
        int whole = (uint64_t)(b - a) == x->tag >> 8;
        for (size_t c = a; c < b && whole; c++) {
            size_t i = order[c];
            const message_event* y = &p->e[i];
            whole = y->tag == x->tag && y->sender == x->sender
                    && (c == a || y->receiver != p->e[order[c - 1]].receiver)
                    && i > 0 && p->e[i - 1].kind == COLL_BEGIN && p->e[i - 1].location == y->location;
        }
        if (whole) {
            for (size_t c = a; c < b; c++) p->instance[order[c]] = p->instance[order[c] - 1] = p->instances;
            p->shape[p->instances] = x->tag & 0xff;
            p->instances++;
        }
        a = b;
    }
    free(order);
    free(sequence);
    return 0;
}

static int add_shift(replay* p, size_t location, size_t index, uint64_t shift, size_t* capacity)
{
    if (p->out_count == *capacity) {
        *capacity = *capacity ? 2 * *capacity : 64;
        shift_point* grown = realloc(p->out, *capacity * sizeof *grown);
        if (grown == NULL) return -1;
        p->out = grown;
    }
    p->out[p->out_count++] = (shift_point){location, index, shift};
    return 0;
}

/* per collective instance during the replay: the begins its leaves still
 * wait for, the two latest placed (the latest of the *other* members is
 * what a member's leave follows) and the locations waiting */
typedef struct instance_state {
    uint64_t remaining;
    uint64_t latest, second;
    size_t latest_location;
    size_t waiters;   /* a list through next_waiter, SIZE_MAX ends it */
} instance_state;

/* Each location runs through its events until a receive whose send is not
 * yet placed, or a collective leave whose enters are not; placing that send
 * or the last of those enters wakes it. True time orders every send before
 * its receive and a collective's enters before the leaves that need their
 * data, so all events are placed unless the matching is wrong. */
static int replay_messages(replay* p)
{
    size_t n = p->n, L = p->locations, capacity = 0;
    uint64_t* placed = malloc((n ? n : 1) * sizeof *placed);   /* final time, or UINT64_MAX */
    size_t* waiter = malloc((n ? n : 1) * sizeof *waiter);     /* send -> waiting location */
    size_t* position = calloc(L ? L : 1, sizeof *position);
    uint64_t* shift = calloc(L ? L : 1, sizeof *shift);
    size_t* stack = malloc((L ? L : 1) * sizeof *stack);
    size_t* next_waiter = malloc((L ? L : 1) * sizeof *next_waiter);
    instance_state* inst = calloc(p->instances ? p->instances : 1, sizeof *inst);
    int failed = !placed || !waiter || !position || !shift || !stack || !next_waiter || !inst;
    size_t top = 0;
    for (size_t i = 0; !failed && i < n; i++) placed[i] = UINT64_MAX, waiter[i] = SIZE_MAX;
    for (size_t l = 0; !failed && l < L; l++) stack[top++] = l;
    for (size_t g = 0; !failed && g < p->instances; g++) {
        inst[g].waiters = SIZE_MAX;
        inst[g].latest_location = SIZE_MAX;
        /* a 1-to-N operation's leaves wait for the root's enter only */
        inst[g].remaining = p->shape[g] == SHAPE_ONE_TO_ALL ? 1 : UINT64_MAX;
    }
    for (size_t i = 0; !failed && i < n; i++) /* the other shapes wait for every member's enter */
        if (p->e[i].kind == COLL_BEGIN && p->instance[i] != SIZE_MAX
            && p->shape[p->instance[i]] != SHAPE_ONE_TO_ALL)
            inst[p->instance[i]].remaining = p->e[i].tag >> 8;
    while (!failed && top > 0) {
        size_t l = stack[--top];
        for (; position[l] < p->first[l + 1] - p->first[l]; position[l]++) {
            size_t i = p->first[l] + position[l];
            message_event* e = &p->e[i];
            uint64_t after = UINT64_MAX;  /* the time the event must follow */
            int collective = 0;
            if (e->kind == RECEIVE && p->match[i] != SIZE_MAX) {
                size_t s = p->match[i];
                if (placed[s] == UINT64_MAX) {
                    waiter[s] = l;
                    break;
                }
                after = placed[s];
            } else if (e->kind == COLL_END && p->instance[i] != SIZE_MAX) {
                size_t g = p->instance[i];
                int is_root = e->receiver == e->sender;
                /* a 1-to-N root's leave and an N-to-1 non-root's wait for nothing */
                if (p->shape[g] == SHAPE_ALL_TO_ALL || (p->shape[g] == SHAPE_ONE_TO_ALL) != is_root) {
                    if (inst[g].remaining > 0) {
                        next_waiter[l] = inst[g].waiters;
                        inst[g].waiters = l;
                        break;
                    }
                    after = p->shape[g] == SHAPE_ONE_TO_ALL || inst[g].latest_location != l ? inst[g].latest
                                                                                          : inst[g].second;
                    collective = 1;
                }
            }
            if (after != UINT64_MAX) {
                /* 2 ticks at least: readers round the interpolated times (half a
                 * tick each side) */
                uint64_t earliest = after + (p->latency > 2 ? p->latency : 2);
                if (e->time + shift[l] < earliest) {
                    shift[l] = earliest - e->time;
                    if (collective) p->moved_collective++;
                    else p->moved++;
                    if (shift[l] > p->max_shift) p->max_shift = shift[l];
                    failed |= add_shift(p, l, position[l], shift[l], &capacity) != 0;
                }
            }
            placed[i] = e->time + shift[l];
            if (e->kind == SEND && waiter[i] != SIZE_MAX) {
                stack[top++] = waiter[i];
                waiter[i] = SIZE_MAX;
            }
            if (e->kind == COLL_BEGIN && p->instance[i] != SIZE_MAX) {
                instance_state* g = &inst[p->instance[i]];
                int counts = p->shape[p->instance[i]] != SHAPE_ONE_TO_ALL || e->receiver == e->sender;
                if (counts && g->remaining > 0) {
                    if (placed[i] >= g->latest) {
                        g->second = g->latest;
                        g->latest = placed[i];
                        g->latest_location = l;
                    } else if (placed[i] > g->second) {
                        g->second = placed[i];
                    }
                    if (--g->remaining == 0)
                        for (size_t w = g->waiters; w != SIZE_MAX; w = next_waiter[w]) stack[top++] = w;
                }
            }
        }
    }
    size_t unplaced = 0;
    for (size_t l = 0; !failed && l < L; l++) unplaced += p->first[l + 1] - p->first[l] - position[l];
    if (unplaced)
        scorep_warning("trace: %zu message and collective events could not be replayed in causal order "
                       "(messages or collectives matched wrongly, or a collective without data that "
                       "synchronises nothing?): their times stay as corrected by the clock offsets",
                       unplaced);
    free(placed);
    free(waiter);
    free(position);
    free(shift);
    free(stack);
    free(next_waiter);
    free(inst);
    return failed ? -1 : 0;
}

/* ---- the collective step ---- */

static int by_location_and_index(const void* a, const void* b)
{
    const shift_point* x = a;
    const shift_point* y = b;
    if (x->location != y->location) return x->location < y->location ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static _Noreturn void out_of_memory(const scorep_multiprocess_ops* mpp)
{
    scorep_warning("trace: out of memory while checking the clock condition");
    if (mpp != NULL && mpp->abort != NULL) mpp->abort(1);
    abort();
}

uint64_t trace_clock_condition(const scorep_finalize_context* ctx, trace_clock_summary* out)
{
    const scorep_multiprocess_ops* mpp = ctx->mpp;
    /* only where some rank reads another clock than rank 0 */
    scorep_clock_offset points[2];
    uint64_t other_clock = 0;
    if (scorep_timer_offsets(points) == 2)
        other_clock = points[0].offset || points[1].offset || points[0].stddev > 0 || points[1].stddev > 0;
    mpp->allreduce_u64(&other_clock, 1, 2);
    *out = (trace_clock_summary){0, 0, 0, 0};
    if (!other_clock) return 0;

    size_t size = ctx->size > 0 ? (size_t)ctx->size : 1;
    struct timespec began, ended;
    clock_gettime(CLOCK_MONOTONIC, &began);
    memset(&cc, 0, sizeof cc);
    cc.defs = ctx->defs;
    cc.rank = ctx->rank;
    /* equal for ranks whose times are on one clock with one correction */
    cc.clock_key = scorep_timer_clock_identity() ^ (uint64_t)points[0].offset * 0x9E3779B97F4A7C15ull
                   ^ (uint64_t)points[1].offset * 0xC2B2AE3D27D4EB4Full;
    size_t n_locations = 0;
    for (trace_location* tl = atomic_load(&trace.locations); tl != NULL; tl = tl->next, n_locations++) {
        cc.location_index = n_locations;
        cc.region = UINT32_MAX;
        cc.pending_begin = SIZE_MAX;
        trace_blocks_walk(tl, scan_block);
    }
    /* gather (locations, events) and the events on rank 0 */
    int root = ctx->rank == 0;
    uint64_t mine[2] = {n_locations, cc.count};
    uint64_t* per_rank = root ? calloc(size * 2, sizeof *per_rank) : NULL;
    size_t* counts = root ? calloc(size, sizeof *counts) : NULL;
    size_t* displacements = root ? calloc(size, sizeof *displacements) : NULL;
    if (root && (!per_rank || !counts || !displacements)) out_of_memory(mpp);
    mpp->gather(mine, sizeof mine, per_rank, 0);
    replay p = {0};
    if (root) {
        size_t total = 0;
        for (int r = 0; r < ctx->size; r++) {
            counts[r] = per_rank[2 * r + 1] * sizeof(message_event);
            displacements[r] = total * sizeof(message_event);
            total += per_rank[2 * r + 1];
            p.locations += per_rank[2 * r];
        }
        p.n = total;
        p.e = malloc((total ? total : 1) * sizeof *p.e);
        if (p.e == NULL) out_of_memory(mpp);
    }
    mpp->gatherv(cc.events, cc.count * sizeof(message_event), p.e, counts, displacements, 0);
    free(cc.events);
    cc.events = NULL;

    size_t* shift_counts = root ? calloc(size, sizeof *shift_counts) : NULL;
    size_t* shift_displacements = root ? calloc(size, sizeof *shift_displacements) : NULL;
    shift_point* ordered = NULL;
    uint64_t summary[4] = {0, 0, 0, 0};   /* moved receives, largest shift, latency, moved leaves */
    if (root) {
        /* global location numbers: ranks in order, each rank's locations in order */
        size_t* location_base = calloc(size + 1, sizeof *location_base);
        p.first = calloc(p.locations + 1, sizeof *p.first);
        p.rank_of = calloc(p.locations ? p.locations : 1, sizeof *p.rank_of);
        if (!shift_counts || !shift_displacements || !location_base || !p.first || !p.rank_of)
            out_of_memory(mpp);
        for (int r = 0; r < ctx->size; r++) {
            location_base[r + 1] = location_base[r] + per_rank[2 * r];
            for (size_t l = location_base[r]; l < location_base[r + 1]; l++) p.rank_of[l] = r;
        }
        size_t i = 0;
        for (int r = 0; r < ctx->size; r++)
            for (uint64_t k = 0; k < per_rank[2 * r + 1]; k++, i++) p.e[i].location += location_base[r];
        /* each rank's events are by location already: count them */
        for (size_t k = 0; k < p.n; k++) p.first[p.e[k].location + 1]++;
        for (size_t l = 0; l < p.locations; l++) p.first[l + 1] += p.first[l];
        if (match_messages(&p) != 0 || match_collectives(&p) != 0 || replay_messages(&p) != 0)
            out_of_memory(mpp);
        /* the shift points go back to their ranks with local location numbers */
        ordered = malloc((p.out_count ? p.out_count : 1) * sizeof *ordered);
        if (ordered == NULL) out_of_memory(mpp);
        size_t k = 0;
        for (int r = 0; r < ctx->size; r++) {
            shift_displacements[r] = k * sizeof *ordered;
            for (size_t j = 0; j < p.out_count; j++)
                if (p.rank_of[p.out[j].location] == r) {
                    ordered[k] = p.out[j];
                    ordered[k++].location -= location_base[r];
                }
            shift_counts[r] = k * sizeof *ordered - shift_displacements[r];
        }
        summary[0] = p.moved;
        summary[1] = p.max_shift;
        summary[2] = p.latency;
        summary[3] = p.moved_collective;
        free(location_base);
        free(p.e);
        free(p.match);
        free(p.instance);
        free(p.shape);
        free(p.first);
        free(p.rank_of);
        free(p.out);
    }
    uint64_t my_count = 0;
    uint64_t* all_counts = root ? calloc(size, sizeof *all_counts) : NULL;
    if (root) {
        if (all_counts == NULL) out_of_memory(mpp);
        for (int r = 0; r < ctx->size; r++) all_counts[r] = shift_counts[r] / sizeof(shift_point);
    }
    mpp->scatter(all_counts, &my_count, sizeof my_count, 0);
    cc.shifts = malloc((my_count ? my_count : 1) * sizeof *cc.shifts);
    if (cc.shifts == NULL) out_of_memory(mpp);
    mpp->scatterv(ordered, shift_counts, shift_displacements, cc.shifts, my_count * sizeof *cc.shifts, 0);
    cc.shift_count = my_count;
    qsort(cc.shifts, cc.shift_count, sizeof *cc.shifts, by_location_and_index);
    free(all_counts);
    free(ordered);
    free(shift_counts);
    free(shift_displacements);
    free(per_rank);
    free(counts);
    free(displacements);
    mpp->bcast(summary, sizeof summary, 0);
    clock_gettime(CLOCK_MONOTONIC, &ended);
    if (root)
        scorep_verbose("trace: clock condition checked over %zu message and collective events (%zu collectives) "
                       "in %.3f ms (%llu receives, %llu collective leaves moved)", p.n, p.instances,
                       (double)(ended.tv_sec - began.tv_sec) * 1e3 + (double)(ended.tv_nsec - began.tv_nsec) / 1e6,
                       (unsigned long long)summary[0], (unsigned long long)summary[3]);
    /* a shift in master ticks, in the ticks the events are written in */
    double slope = 0;
    if (scorep_timer_offsets(points) == 2 && points[1].local > points[0].local)
        slope = (double)(points[1].offset - points[0].offset) / (double)(points[1].local - points[0].local);
    cc.local_per_master = 1.0 / (1.0 + slope);
    cc.active = 1;
    out->receives = summary[0];
    out->largest = summary[1];
    out->latency = summary[2];
    out->collectives = summary[3];
    return summary[1];
}

/* ---- applied while a location is encoded (trace_encode.c) ---- */

void trace_clock_begin_location(trace_location* tl)
{
    if (!cc.active) return;
    uint64_t index = 0;
    for (trace_location* t = atomic_load(&trace.locations); t != NULL && t != tl; t = t->next) index++;
    const shift_point* p = cc.shifts;
    const shift_point* end = cc.shifts + cc.shift_count;
    while (p < end && p->location < index) p++;
    cc.next = p;
    while (p < end && p->location == index) p++;
    cc.end = p;
    cc.message_index = 0;
    cc.shift_now = 0;
}

uint64_t trace_clock_time(const raw_record* r)
{
    if (!cc.active || (cc.shift_now == 0 && cc.next == cc.end)) return r->time;
    if (message_of(r, NULL)) {
        if (cc.next < cc.end && cc.next->index == cc.message_index) {
            cc.shift_now = (uint64_t)((double)cc.next->shift * cc.local_per_master) + 1; /* rounded up */
            cc.next++;
        }
        cc.message_index++;
    }
    if (cc.shift_now) cc.moved++;
    return r->time + cc.shift_now;
}

uint64_t trace_clock_moved_events(void) { return cc.moved; }

/* how far the correction moved events (master ticks), as trace_write.c got it
 * from trace_clock_condition: the trace is that much longer (trace_definitions.c) */
uint64_t trace_clock_moved_span;
